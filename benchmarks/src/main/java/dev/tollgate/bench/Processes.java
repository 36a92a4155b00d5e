package dev.tollgate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The harness's child processes: their CPU time, from /proc (Linux; NaN elsewhere), and their stop. */
public final class Processes {

    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

    private Processes() {
    }

    /** User plus system CPU seconds of a process and its threads so far. */
    public static double cpuSeconds(long pid) {
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
    public static double treeCpuSeconds(ProcessHandle p) {
        double sum = cpuSeconds(p.pid());
        for (ProcessHandle c : (Iterable<ProcessHandle>) p.descendants()::iterator) {
            sum += cpuSeconds(c.pid());
        }
        return sum;
    }

    /**
     * Stops an application JVM of the harness: closing its input asks it to stop (it stops when
     * its standard input closes), then it is killed if it has not stopped within 15 s.
     */
    public static void stop(Process process) {
        if (!process.isAlive()) {
            return;
        }
        try {
            process.getOutputStream().close();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
