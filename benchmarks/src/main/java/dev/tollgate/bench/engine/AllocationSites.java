package dev.tollgate.bench.engine;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where one {@link EngineBench} benchmark allocates, exactly: run in a JVM with
 * {@code -XX:-UseTLAB}, every allocation is a JFR {@code jdk.ObjectAllocationOutsideTLAB} event
 * with its size and stack, so no sampling is involved. Warms up (the JIT's escape analysis
 * removes some allocations, as it does in production), records a number of calls, and prints
 * bytes per call by allocated class and the first Tollgate frame that allocated it. The total is
 * checked against the thread's allocation counter.
 *
 * <p>Arguments: the benchmark ({@code localCheck}, {@code redisCheck}, or one of
 * {@link FilterBench}'s: {@code redisFilterRefused}, {@code redisFilterAllowed}, {@code localFilterAllowed}), and
 * the number of calls recorded (default 20,000). {@link EngineRun} starts it with the option
 * {@code sites}.
 */
public final class AllocationSites {

    private AllocationSites() {
    }

    public static void main(String[] args) throws Exception {
        String method = args[0];
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        Runnable call;
        Runnable tearDown;
        if (method.contains("Filter")) {
            FilterBench bench = new FilterBench();
            bench.setUp(method);
            boolean allowed = method.endsWith("Allowed");
            call = () -> {
                try {
                    bench.call(allowed);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            tearDown = bench::tearDown;
        } else {
            EngineBench bench = new EngineBench();
            bench.setUp(method);
            call = switch (method) {
                case "localCheck" -> bench::localCheck;
                case "redisCheck" -> bench::redisCheck;
                default -> throw new IllegalArgumentException(method);
            };
            tearDown = bench::tearDown;
        }
        for (int i = 0; i < 300_000; i++) { // long enough for C2 to compile the path
            call.run();
        }
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        Path file = Files.createTempFile("tollgate-alloc", ".jfr");
        long counted;
        try (Recording r = new Recording()) {
            r.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
            r.start();
            long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < calls; i++) {
                call.run();
            }
            counted = threads.getThreadAllocatedBytes(tid) - before;
            r.stop();
            r.dump(file);
        }
        tearDown.run();
        String thread = Thread.currentThread().getName();
        Map<String, long[]> sites = new HashMap<>();
        long total = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getThread() == null || !thread.equals(e.getThread().getJavaName())) {
                continue;
            }
            long size = e.getLong("allocationSize");
            total += size;
            String site = e.getClass("objectClass").getName() + " @ " + site(e.getStackTrace().getFrames());
            sites.computeIfAbsent(site, k -> new long[1])[0] += size;
        }
        Files.delete(file);
        System.out.printf(Locale.ROOT, "%s: %.1f B per call recorded by JFR, %.1f B by the thread's counter, %d calls%n",
                method, (double) total / calls, (double) counted / calls, calls);
        sites.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                .forEach(s -> System.out.printf(Locale.ROOT, "%8.1f B  %s%n", (double) s.getValue()[0] / calls, s.getKey()));
    }

    /** The first Tollgate frame (not the benchmark's), with the one under it for context. */
    private static String site(List<RecordedFrame> frames) {
        for (int i = 0; i < frames.size(); i++) {
            String type = frames.get(i).getMethod().getType().getName();
            if (type.startsWith("dev.tollgate.") && !type.startsWith("dev.tollgate.bench.")) {
                return frame(frames.get(i)) + (i + 1 < frames.size() ? " < " + frame(frames.get(i + 1)) : "");
            }
        }
        return frames.isEmpty() ? "?" : frame(frames.get(0));
    }

    private static String frame(RecordedFrame f) {
        String type = f.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName() + ":" + f.getLineNumber();
    }
}
