package dev.tollgate.bench.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of a process, from /proc (Linux); NaN elsewhere. */
final class Processes {

    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

    private Processes() {
    }

    /** User plus system CPU seconds of a process and its threads so far. */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after "pid (comm) ": state is f[0]; utime is field 14 of the line, f[11]; stime f[12]
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** CPU seconds of a process and every descendant still alive (nginx workers). */
    static double treeCpuSeconds(ProcessHandle p) {
        double sum = cpuSeconds(p.pid());
        for (ProcessHandle c : (Iterable<ProcessHandle>) p.descendants()::iterator) {
            sum += cpuSeconds(c.pid());
        }
        return sum;
    }
}
