package dev.tollgate.bench.growth;

import dev.tollgate.Decision;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.RateLimiter;
import dev.tollgate.bench.Clients;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.engine.DenyCache;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.local.MicroClock;
import java.util.ArrayList;
import java.util.List;
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
 * <p>A store call is one token of {@value Configs#LIMIT}: a bucket found has fewer than the burst
 * left, one forgotten starts full, so the share of calls that found their bucket is counted. A
 * deny-cache call is what the planner does: ask; on a miss, remember the refusal the store would
 * give (one hour). For scale, the whole in-memory check over the same client counts: its planner
 * keeps plans by peer address in a bounded table of its own ({@code PlanCache}).
 */
final class BoundGrowth {

    record Row(String what, int clients, long heldAfter, double retainedBytes, double foundShare,
               Rotation.Figure figure) {
    }

    private BoundGrowth() {
    }

    static List<Row> run(int bound, List<Integer> clientCounts, int warmup, int rounds) {
        int most = clientCounts.stream().mapToInt(Integer::intValue).max().orElseThrow();
        List<Limit> limits = Limit.parse(Configs.LIMIT);
        long burst = limits.get(0).capacity();
        List<BucketRequest>[] requests = requests(most, limits);
        String[] denyKeys = new String[most];
        for (int i = 0; i < most; i++) {
            denyKeys[i] = requests[i].get(0).key() + "\u00001\u0000ENFORCE\u0000";
        }
        Policy policy = Configs.load(Configs.base(1)).policies().get(0);
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
                long before = Rotation.heapUsed();
                LocalStore store = new LocalStore(bound, MicroClock.SYSTEM);
                for (int i = 0; i < n; i++) { // a key of its own, as a request's would be: its bytes count
                    store.acquire(List.of(BucketRequest.take(new String(requests[i].get(0).key()), limits, 1, true)));
                }
                long retained = Rotation.heapUsed() - before;
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

                before = Rotation.heapUsed();
                DenyCache cache = new DenyCache(bound, System::nanoTime);
                for (int i = 0; i < n; i++) {
                    String own = new String(denyKeys[i]);
                    if (cache.refused(own, generation, 1_000_000_000L) == null) {
                        cache.remember(own, generation, refusal);
                    }
                }
                retained = Rotation.heapUsed() - before;
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
                Map<String, String> values = Configs.base(1);
                values.put("tollgate.local.max-keys", Integer.toString(Math.max(1000, 2 * most)));
                GrowthRequest[] views = new GrowthRequest[n];
                for (int i = 0; i < n; i++) {
                    views[i] = GrowthRequest.of("GET", "/api/hello", Clients.address(i));
                }
                long before = Rotation.heapUsed();
                RateLimiter limiter = RateLimiter.create(Configs.load(values));
                limiters.add(limiter);
                for (int i = 0; i < n; i++) {
                    limiter.check(views[i]);
                }
                long retained = Rotation.heapUsed() - before;
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
            Histogram[] h = Rotation.time(calls, warmup, 1);
            found.forEach(c -> {
                c[0] = 0;
                c[1] = 0;
            });
            h = Rotation.time(calls, 0, rounds);
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
                double bytes = Rotation.bytesPerCall(calls.get(i), Math.min(rounds, 100_000));
                rows.add(new Row(s.what(), s.clients(), held, s.retainedBytes(), share,
                        Rotation.figure(s.what() + ", " + s.clients() + " clients", h[i], bytes)));
            }
            return rows;
        } finally {
            stores.forEach(LocalStore::close);
            limiters.forEach(RateLimiter::close);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<BucketRequest>[] requests(int n, List<Limit> limits) {
        List<BucketRequest>[] out = new List[n];
        for (int i = 0; i < n; i++) {
            out[i] = List.of(BucketRequest.take(BucketKeys.key("tollgate:", "p0", BucketKeys.client("ip=" + Clients.address(i))),
                    limits, 1, true));
        }
        return out;
    }
}
