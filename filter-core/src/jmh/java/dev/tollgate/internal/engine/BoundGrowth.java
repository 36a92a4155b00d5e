package dev.tollgate.internal.engine;

import dev.tollgate.Decision;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.RateLimiter;
import com.sun.management.ThreadMXBean;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.local.MicroClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * The two bounded maps of a node at and past their bound, as the number of distinct clients goes
 * from a tenth of it to ten times it: the in-memory store ({@link LocalStore}, {@code local.max-keys},
 * least recently used forgotten) and the deny cache ({@link DenyCache}, bounded by the same
 * setting; full of live refusals it remembers no more). One of each per client count, filled first
 * (heap retained measured then), then all timed in the same rotation on clients at random.
 *
 * <p>A store call is one token of {@value #LIMIT}: a bucket found has fewer than the burst
 * left, one forgotten starts full, so the share of calls that found their bucket is counted. A
 * deny-cache call is what the planner does: ask; on a miss, remember the refusal the store would
 * give (one hour). For scale, the whole in-memory check over the same client counts: its planner
 * keeps plans by peer address in a bounded table of its own ({@code PlanCache}).
 *
 * <p>Calls are timed one by one in a rotating order in one thread, so that load from other
 * processes falls on all alike. Formerly the {@code bounds} part of the benchmarks module's
 * {@code growth} run; a main of filter-core's {@code jmh} set, printing a Markdown table. Arguments:
 * the bound (default 10,000), the rounds timed (default 200,000). Run with {@code -Pjmh ... exec:exec
 * -Djmh.main=dev.tollgate.internal.engine.BoundGrowth -Djmh.args="10000 200000"}.
 */
public final class BoundGrowth {

    /**
     * One token an hour, a burst no run can spend: every decision allows, and every bucket stays
     * in its store for an hour per token taken, so the live keys are exactly the clients seen.
     */
    static final String LIMIT = "1/h burst 1000000";

    record Row(String what, int clients, long heldAfter, double retainedBytes, double foundShare, Figure figure) {
    }

    /** Time per call in ns (P50, P90, P99, mean) and bytes allocated per call (a separate, untimed pass). */
    record Figure(String name, double p50, double p90, double p99, double mean, double bytes, long count) {
    }

    private BoundGrowth() {
    }

    public static void main(String[] args) {
        int bound = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        List<Integer> clients = new ArrayList<>();
        for (double f : new double[] {0.1, 0.2, 0.5, 1, 2, 5, 10}) {
            clients.add((int) Math.round(bound * f));
        }
        List<Row> rows = run(bound, clients, rounds / 2, rounds);
        System.out.println("| structure | clients | held after | retained heap B/client (after filling) | retained heap MB"
                + " | bucket found / refusal hit | P50 ns | P99 ns | mean ns | B/call |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (Row r : rows) {
            Figure f = r.figure();
            System.out.printf(Locale.ROOT, "| %s | %,d | %s | %.0f | %.1f | %s | %.0f | %.0f | %.0f | %.0f |%n", r.what(),
                    r.clients(), r.heldAfter() < 0 ? "" : String.format(Locale.ROOT, "%,d", r.heldAfter()),
                    r.retainedBytes(), r.retainedBytes() * r.clients() / 1e6,
                    Double.isNaN(r.foundShare()) ? "" : String.format(Locale.ROOT, "%.1f %%", 100 * r.foundShare()),
                    f.p50(), f.p99(), f.mean(), f.bytes());
        }
    }

    static List<Row> run(int bound, List<Integer> clientCounts, int warmup, int rounds) {
        int most = clientCounts.stream().mapToInt(Integer::intValue).max().orElseThrow();
        List<Limit> limits = Limit.parse(LIMIT);
        long burst = limits.get(0).capacity();
        List<BucketRequest>[] requests = requests(most, limits);
        String[] denyKeys = new String[most];
        for (int i = 0; i < most; i++) {
            denyKeys[i] = requests[i].get(0).key() + "\u00001\u0000ENFORCE\u0000";
        }
        Policy policy = TestConfigs.of(base(1)).policies().get(0);
        long hour = 3_600_000_000L;
        List<PolicyResult> refusal = List.of(new PolicyResult(policy, "ip=203.0.113.7", null,
                List.of(new LimitState(limits.get(0), 0, hour, hour, hour))));
        Object generation = new Object();

        List<Supplier<Object>> calls = new ArrayList<>();
        List<Row> shapes = new ArrayList<>();
        List<LocalStore> stores = new ArrayList<>();
        List<DenyCache> caches = new ArrayList<>();
        List<RateLimiter> limiters = new ArrayList<>();
        List<Integer> heldBy = new ArrayList<>(); // per contender: 0 store, 1 cache, 2 limiter
        List<long[]> found = new ArrayList<>(); // per contender: {found, asked}
        SplittableRandom random = new SplittableRandom(15);
        try {
            for (int n : clientCounts) {
                long before = heapUsed();
                LocalStore store = new LocalStore(bound, MicroClock.SYSTEM);
                for (int i = 0; i < n; i++) { // a key of its own, as a request's would be: its bytes count
                    store.acquire(List.of(BucketRequest.take(new String(requests[i].get(0).key()), limits, 1, true)));
                }
                long retained = heapUsed() - before;
                stores.add(store);
                long[] counts = new long[2];
                found.add(counts);
                shapes.add(new Row("local store", n, 0, retained / (double) n, Double.NaN, null));
                calls.add(() -> {
                    List<BucketReply> r = store.acquire(requests[random.nextInt(n)]);
                    LimitState s = r.get(0).limits().get(0);
                    if (!s.admits()) {
                        throw new IllegalStateException("the store refused");
                    }
                    counts[0] += s.remaining() < burst - 1 ? 1 : 0;
                    counts[1]++;
                    return r;
                });

                before = heapUsed();
                DenyCache cache = new DenyCache(bound, System::nanoTime);
                for (int i = 0; i < n; i++) {
                    String own = new String(denyKeys[i]);
                    if (cache.refused(own, generation, 1_000_000_000L) == null) {
                        cache.remember(own, generation, refusal);
                    }
                }
                retained = heapUsed() - before;
                caches.add(cache);
                long[] hits = new long[2];
                found.add(hits);
                shapes.add(new Row("deny cache", n, 0, retained / (double) n, Double.NaN, null));
                heldBy.add(0);
                heldBy.add(1);
                calls.add(() -> {
                    String key = denyKeys[random.nextInt(n)];
                    List<PolicyResult> r = cache.refused(key, generation, 1_000_000_000L);
                    hits[1]++;
                    if (r == null) {
                        cache.remember(key, generation, refusal);
                        return key;
                    }
                    hits[0]++;
                    return r;
                });
            }
            // The whole in-memory check, whose planner keeps plans in PlanCache's 16,384 slots; its store
            // holds every client (max-keys above the largest count), so only the plans are bounded.
            for (int n : clientCounts) {
                Map<String, String> values = base(1);
                values.put("tollgate.local.max-keys", Integer.toString(Math.max(1000, 2 * most)));
                TestRequest[] views = new TestRequest[n];
                for (int i = 0; i < n; i++) {
                    views[i] = TestRequest.get("/api/hello").from(StoreBench.address(i));
                }
                long before = heapUsed();
                RateLimiter limiter = RateLimiter.create(TestConfigs.of(values));
                limiters.add(limiter);
                for (int i = 0; i < n; i++) {
                    limiter.check(views[i]);
                }
                long retained = heapUsed() - before;
                found.add(new long[2]);
                heldBy.add(2);
                shapes.add(new Row("in-memory check (its store and kept plans)", n, 0, retained / (double) n, Double.NaN,
                        null));
                calls.add(() -> {
                    Decision d = limiter.check(views[random.nextInt(n)]);
                    if (!d.allowed()) {
                        throw new IllegalStateException("the check refused");
                    }
                    return d;
                });
            }
            Histogram[] h = time(calls, warmup, 1);
            found.forEach(c -> {
                c[0] = 0;
                c[1] = 0;
            });
            h = time(calls, 0, rounds);
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                Row s = shapes.get(i);
                long[] c = found.get(i);
                double share = c[1] == 0 ? Double.NaN : c[0] / (double) c[1];
                long held = switch (heldBy.get(i)) {
                    case 0 -> stores.get(i / 2).size();
                    case 1 -> caches.get(i / 2).size();
                    default -> -1;
                };
                double bytes = bytesPerCall(calls.get(i), Math.min(rounds, 100_000));
                rows.add(new Row(s.what(), s.clients(), held, s.retainedBytes(), share,
                        figure(s.what() + ", " + s.clients() + " clients", h[i], bytes)));
            }
            return rows;
        } finally {
            stores.forEach(LocalStore::close);
            limiters.forEach(RateLimiter::close);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<BucketRequest>[] requests(int n, List<Limit> limits) {
        List<BucketRequest>[] out = new List[n];
        for (int i = 0; i < n; i++) {
            out[i] = List.of(BucketRequest.take(BucketKeys.key("tollgate:", "p0", BucketKeys.client("ip=" + StoreBench.address(i))),
                    limits, 1, true));
        }
        return out;
    }

    /** The growth runs' configuration: {@code policies} policies p0, p1, ... of {@link #LIMIT} by IP. */
    static Map<String, String> base(int policies) {
        Map<String, String> v = new LinkedHashMap<>();
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < policies; i++) {
            names.append(i == 0 ? "" : ",").append("p").append(i);
            v.put("tollgate.policy.p" + i + ".limits", LIMIT);
            v.put("tollgate.policy.p" + i + ".key", "ip");
        }
        v.put("tollgate.policies", names.toString());
        v.put("tollgate.local.max-keys", "100000");
        v.put("tollgate.metrics", "none");
        return v;
    }

    /** Each call timed, one round after another, every round starting one contender further. */
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
