package dev.tollgate.bench.growth;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.bench.Clients;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Decision time in memory ({@link RateLimiter#check}, in-memory store) with 1, 8 and 64 policies
 * configured. Policy {@code i} has a match of its own, alternating in shape and method
 * ({@code GET /api/s<i>/**} for even i, {@code GET|POST /api/s<i>/*}{@code /items} for odd i), and
 * also covers {@code GET /all/**}; the first four also cover {@code GET /few/**}. Three requests:
 * one that only the last policy matches (every matcher is tried), one matched by up to four,
 * one matched by all. Every configuration and request is timed in the same rotation.
 */
final class PolicyGrowth {

    record Row(int policies, String request, int matched, Rotation.Figure figure) {
    }

    private PolicyGrowth() {
    }

    static List<Row> run(List<Integer> counts, int clients, int warmup, int rounds) {
        List<RateLimiter> limiters = new ArrayList<>();
        List<Supplier<Object>> calls = new ArrayList<>();
        List<Row> shapes = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(15);
        try {
            for (int n : counts) {
                Map<String, String> values = Configs.base(n);
                for (int i = 0; i < n; i++) {
                    String own = i % 2 == 0 ? "GET /api/s" + i + "/**" : "GET|POST /api/s" + i + "/*/items";
                    values.put("tollgate.policy.p" + i + ".match", own + ", GET /all/**" + (i < 4 ? ", GET /few/**" : ""));
                }
                RateLimiter limiter = RateLimiter.create(Configs.load(values));
                limiters.add(limiter);
                int last = n - 1;
                String onePath = last % 2 == 0 ? "/api/s" + last + "/orders/7" : "/api/s" + last + "/orders/items";
                String[][] requests = {{"one", onePath}, {"few", "/few/orders/7"}, {"all", "/all/orders/7"}};
                for (String[] r : requests) {
                    RequestView[] views = new RequestView[clients];
                    for (int c = 0; c < clients; c++) {
                        views[c] = GrowthRequest.of("GET", r[1], Clients.address(c));
                    }
                    int matched = limiter.check(views[0]).results().size();
                    if (shapes.stream().anyMatch(s -> s.policies() == n && s.matched() == matched)) {
                        continue; // with one policy every request matches the same one
                    }
                    shapes.add(new Row(n, r[0], matched, null));
                    calls.add(() -> allowed(limiter.check(views[random.nextInt(clients)]), matched));
                }
            }
            Histogram[] h = Rotation.time(calls, warmup, rounds);
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                Row s = shapes.get(i);
                double bytes = Rotation.bytesPerCall(calls.get(i), Math.min(rounds, 100_000));
                rows.add(new Row(s.policies(), s.request(), s.matched(),
                        Rotation.figure(s.policies() + " policies, " + s.request(), h[i], bytes)));
            }
            return rows;
        } finally {
            limiters.forEach(RateLimiter::close);
        }
    }

    private static Decision allowed(Decision d, int matched) {
        if (!d.allowed() || d.results().size() != matched) {
            throw new IllegalStateException("expected an admit by " + matched + " policies, got " + d.verdict()
                    + " by " + d.results().size());
        }
        return d;
    }
}
