package dev.tollgate.internal.engine;

import org.HdrHistogram.Histogram;

/**
 * The check and the store under it timed call by call, one after the other in a rotating order
 * in the same thread, so that load from other processes on a shared machine falls on both
 * alike: the ratio and the difference stay meaningful where JMH's figures, taken one benchmark
 * after the other, swing with the load. Each call's time includes one {@code System.nanoTime()}
 * pair (some 20 to 50 ns), the same for both, which the difference cancels.
 *
 * <p>Arguments: the number of clients (default 10,000, several separated by commas), the rounds
 * measured (default 1,000,000). Run with {@code -Pjmh ... exec:exec
 * -Djmh.main=dev.tollgate.internal.engine.EngineInterleaved -Djmh.args="10000,50000 1000000"}.
 */
public final class EngineInterleaved {

    /** P50, P90 and mean of each, in ns. */
    record Figure(String name, double p50Nanos, double p90Nanos, double meanNanos, long count) {
    }

    private EngineInterleaved() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        System.out.println("| clients | store P50 ns | check P50 ns | check - store, P50 | check / store, P50 | store mean ns"
                + " | check mean ns | check - store, mean |");
        System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (String c : (args.length > 0 ? args[0] : "10000").split(",")) {
            Figure[] f = run(Integer.parseInt(c.trim()), 300_000, rounds);
            Figure s = f[0];
            Figure k = f[1];
            System.out.printf(java.util.Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.2fx | %.0f | %.0f | %.0f |%n", c.trim(),
                    s.p50Nanos(), k.p50Nanos(), k.p50Nanos() - s.p50Nanos(), k.p50Nanos() / s.p50Nanos(),
                    s.meanNanos(), k.meanNanos(), k.meanNanos() - s.meanNanos());
        }
    }

    static Figure[] run(int clients, int warmup, int rounds) {
        StoreBench store = bench(clients, "localStore");
        StoreBench check = bench(clients, "localCheck");
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

    private static StoreBench bench(int clients, String method) {
        StoreBench b = new StoreBench();
        b.clients = clients;
        b.limit = "1/s burst 1000000000";
        b.setUp(method);
        return b;
    }

    private static Figure figure(String name, Histogram h) {
        return new Figure(name, h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getMean(), h.getTotalCount());
    }
}
