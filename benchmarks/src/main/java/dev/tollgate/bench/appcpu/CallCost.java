package dev.tollgate.bench.appcpu;

import com.sun.management.ThreadMXBean;
import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.bench.Clients;
import dev.tollgate.bench.report.Table;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;
import redis.clients.jedis.RedisClient;

/**
 * The client's own cost of one call, outside any server: one thread calls a Jedis {@code PING} and
 * a Tollgate {@code RateLimiter.check} (allowed decisions
 * over 10,000 clients, Tollgate's defaults: 100 ms budget, pool of 16, auto-pipelining, deny cache),
 * {@code calls} times each, in turn, round after round; per call, the thread's CPU time (user and
 * system: the socket calls count) and the bytes it allocated, from {@link ThreadMXBean}. One thread
 * means no hand-off and no contention: what is left is encoding, pooling, planning and decoding,
 * the part of the application's CPU per request that is Java. The median of the rounds is kept.
 * A call that fails (a stall of a loaded machine past a read timeout, a decision not from Redis)
 * is counted and shown, and the run goes on. (The store alone, {@code RedisStore.acquire}, was a
 * third contender; it is measured in filter-core's {@code jmh} source set, {@code StoreBench}.)
 *
 * <p>Not thread-safe; run from {@link AppCpuRun} with a Redis of its own.
 */
final class CallCost {

    private static final int KEYS = 10_000;
    private static final String LIMIT = "1000000/s burst 1000000";

    /** A contender's medians over the rounds. */
    record Figure(String name, double cpuNanos, double bytes, double wallNanos, int failures) {
    }

    private CallCost() {
    }

    static List<Figure> run(int redisPort, int calls, int rounds) {
        System.setProperty(Clients.PORT, Integer.toString(redisPort));
        System.setProperty(Clients.TIMEOUT_MS, "100");
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        RedisClient ping = AppCpuServer.pingClient(redisPort);
        RateLimiter limiter = RateLimiter.create(Clients.config(true, true, LIMIT));
        try {
            RequestView[] views = new RequestView[KEYS];
            for (int i = 0; i < KEYS; i++) {
                views[i] = Clients.request(Clients.address(i));
            }
            Map<String, IntConsumer> contenders = new LinkedHashMap<>();
            contenders.put("Jedis PING", k -> {
                if (!"PONG".equals(ping.ping())) {
                    throw new IllegalStateException("no PONG");
                }
            });
            contenders.put("RateLimiter.check", k -> {
                Decision d = limiter.check(views[k]);
                if (!d.allowed() || d.source() != Decision.Source.REDIS) {
                    throw new IllegalStateException("expected an allowed decision from Redis, got " + d);
                }
            });
            Map<String, List<double[]>> seen = new LinkedHashMap<>();
            contenders.keySet().forEach(n -> seen.put(n, new ArrayList<>()));
            long tid = Thread.currentThread().getId();
            Map<String, Integer> failures = new LinkedHashMap<>();
            int k = 0;
            for (int r = -2; r < rounds; r++) { // two rounds of warm-up
                for (var e : contenders.entrySet()) {
                    long cpu0 = threads.getThreadCpuTime(tid);
                    long bytes0 = threads.getThreadAllocatedBytes(tid);
                    long t0 = System.nanoTime();
                    for (int i = 0; i < calls; i++) {
                        try {
                            e.getValue().accept(k);
                        } catch (RuntimeException failed) {
                            // a stall of the loaded machine past the 25 ms read timeout: counted, not hidden
                            failures.merge(e.getKey(), 1, Integer::sum);
                        }
                        k = k + 1 == KEYS ? 0 : k + 1;
                    }
                    double wall = (System.nanoTime() - t0) / (double) calls;
                    double cpu = (threads.getThreadCpuTime(tid) - cpu0) / (double) calls;
                    double bytes = (threads.getThreadAllocatedBytes(tid) - bytes0) / (double) calls;
                    if (r >= 0) {
                        seen.get(e.getKey()).add(new double[] {cpu, bytes, wall});
                        System.out.printf(Locale.ROOT, "[bench]   calls, round %d, %-18s CPU %.2f µs, %.0f B, wall %.1f µs per call%n",
                                r + 1, e.getKey(), cpu / 1e3, bytes, wall / 1e3);
                    }
                }
            }
            List<Figure> out = new ArrayList<>();
            for (var e : seen.entrySet()) {
                out.add(new Figure(e.getKey(), median(e.getValue(), 0), median(e.getValue(), 1), median(e.getValue(), 2),
                        failures.getOrDefault(e.getKey(), 0)));
            }
            return out;
        } finally {
            limiter.close();
            ping.close();
        }
    }

    static String markdown(List<Figure> figures) {
        double ping = figures.get(0).cpuNanos();
        Table t = new Table("call, one thread", "CPU µs/call (median)", "vs PING", "B allocated/call", "wall µs/call",
                "failed calls (timeouts, fallbacks)");
        for (Figure f : figures) {
            t.row(f.name(), Table.num(f.cpuNanos() / 1e3), Table.ratio(f.cpuNanos() / ping), Table.num(f.bytes()),
                    Table.num(f.wallNanos() / 1e3), f.failures());
        }
        return t.markdown();
    }

    private static double median(List<double[]> rows, int column) {
        double[] v = new double[rows.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = rows.get(i)[column];
        }
        java.util.Arrays.sort(v);
        int n = v.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
