package dev.tollgate.bench.engine;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@link FilterBench}'s calls timed in the calling thread's own CPU time rather than wall time:
 * on a machine shared with other work, the time a thread is not running is not counted, so the
 * figure moves less with the load than JMH's average time (cache and core sharing still move it).
 * Warms up, then measures slices of calls and prints, per benchmark, the median and range of CPU
 * ns and bytes allocated per call.
 *
 * <p>Arguments: benchmarks ({@code redisFilterRefused}, {@code redisFilterAllowed},
 * {@code localFilterAllowed}, comma-separated), then optionally the calls per slice (200,000) and
 * the slices (7). {@code redis*} needs {@code -Dtollgate.bench.redis.port=<port>} of a running Redis.
 * Run on the module's class path: {@code java -cp <class path> dev.tollgate.bench.engine.FilterCpu ...}.
 */
public final class FilterCpu {

    private FilterCpu() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int slices = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        for (String method : args[0].split(",")) {
            FilterBench bench = new FilterBench();
            bench.setUp(method);
            boolean allowed = method.endsWith("Allowed");
            for (int i = 0; i < 300_000; i++) { // long enough for C2 to compile the path
                bench.call(allowed);
            }
            double[] ns = new double[slices];
            double[] bytes = new double[slices];
            for (int s = 0; s < slices; s++) {
                long cpu = threads.getCurrentThreadCpuTime();
                long alloc = threads.getThreadAllocatedBytes(tid);
                for (int i = 0; i < calls; i++) {
                    bench.call(allowed);
                }
                ns[s] = (double) (threads.getCurrentThreadCpuTime() - cpu) / calls;
                bytes[s] = (double) (threads.getThreadAllocatedBytes(tid) - alloc) / calls;
            }
            bench.tearDown();
            Arrays.sort(ns);
            Arrays.sort(bytes);
            System.out.printf(Locale.ROOT, "%s: CPU ns/call median %.0f (%.0f-%.0f), B/call median %.0f, %d slices of %d calls%n",
                    method, ns[slices / 2], ns[0], ns[slices - 1], bytes[slices / 2], slices, calls);
        }
    }
}
