package dev.tollgate.bench.engine;

import org.HdrHistogram.Histogram;

/**
 * The check and the store under it timed call by call, one after the other in a rotating order
 * in the same thread, so that load from other processes on a shared machine falls on both
 * alike: the ratio and the difference stay meaningful where JMH's figures, taken one benchmark
 * after the other, swing with the load. Each call's time includes one {@code System.nanoTime()}
 * pair (some 20 to 50 ns), the same for both, which the difference cancels.
 */
final class EngineInterleaved {

    /** P50, P90 and mean of each, in ns. */
    record Figure(String name, double p50Nanos, double p90Nanos, double meanNanos, long count) {
    }

    private EngineInterleaved() {
    }

    static Figure[] run(int clients, int warmup, int rounds) {
        EngineBench store = new EngineBench();
        store.clients = clients;
        store.setUp("localStore");
        EngineBench check = new EngineBench();
        check.clients = clients;
        check.setUp("localCheck");
        try {
            for (int i = 0; i < warmup; i++) {
                store.localStore();
                check.localCheck();
            }
            Histogram s = new Histogram(3);
            Histogram c = new Histogram(3);
            Object sink = null;
            for (int i = 0; i < rounds; i++) {
                boolean storeFirst = (i & 1) == 0;
                long t0 = System.nanoTime();
                sink = storeFirst ? store.localStore() : check.localCheck();
                long t1 = System.nanoTime();
                sink = storeFirst ? check.localCheck() : store.localStore();
                long t2 = System.nanoTime();
                s.recordValue(storeFirst ? t1 - t0 : t2 - t1);
                c.recordValue(storeFirst ? t2 - t1 : t1 - t0);
            }
            if (sink == null) {
                throw new IllegalStateException("no answer");
            }
            return new Figure[] {figure("localStore", s), figure("localCheck", c)};
        } finally {
            store.tearDown();
            check.tearDown();
        }
    }

    private static Figure figure(String name, Histogram h) {
        return new Figure(name, h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getMean(), h.getTotalCount());
    }
}
