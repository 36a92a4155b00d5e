package dev.tollgate.bench.growth;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Calls timed one by one in a rotating order in one thread: every round calls each contender once,
 * starting one further each round, so that load from other processes on a shared machine falls on
 * all of them alike and the ratios between them stay meaningful. Each time includes one
 * {@code System.nanoTime()} pair, the same for all.
 */
final class Rotation {

    /** Time per call in ns (P50, P90, P99, mean) and bytes allocated per call (a separate, untimed pass). */
    record Figure(String name, double p50, double p90, double p99, double mean, double bytes, long count) {
    }

    private Rotation() {
    }

    static Histogram[] time(List<? extends Supplier<?>> calls, int warmupRounds, int rounds) {
        int n = calls.size();
        Object sink = null;
        for (int r = 0; r < warmupRounds; r++) {
            for (int i = 0; i < n; i++) {
                sink = calls.get(i).get();
            }
        }
        Histogram[] h = new Histogram[n];
        for (int i = 0; i < n; i++) {
            h[i] = new Histogram(3);
        }
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < n; k++) {
                int i = (k + r) % n;
                long t0 = System.nanoTime();
                sink = calls.get(i).get();
                long t1 = System.nanoTime();
                h[i].recordValue(t1 - t0);
            }
        }
        if (sink == null) {
            throw new IllegalStateException("a contender answered null");
        }
        return h;
    }

    /** Bytes allocated per call by this thread, over {@code calls} calls after the timing's warm-up. */
    static double bytesPerCall(Supplier<?> call, int calls) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        Object sink = null;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < calls; i++) {
            sink = call.get();
        }
        long after = threads.getCurrentThreadAllocatedBytes();
        if (sink == null) {
            throw new IllegalStateException("a contender answered null");
        }
        return (after - before) / (double) calls;
    }

    static Figure figure(String name, Histogram h, double bytes) {
        return new Figure(name, h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
                h.getMean(), bytes, h.getTotalCount());
    }

    /** Heap in use after collecting garbage (several times, until it stops shrinking much). */
    static long heapUsed() {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            best = Math.min(best, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return best;
    }
}
