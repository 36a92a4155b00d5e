package dev.tollgate.internal.engine;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Policy;
import dev.tollgate.RequestView;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The planner keeps plans by peer address where a plan depends on nothing else
 * ({@link PlanCache}). The guarantee: keeping them is invisible. The reference model is a
 * planner that has seen nothing (a new one per request), which must make the same plan as the
 * long-lived one for every request: over configurations that may keep plans (by address, or by
 * address and one key header's value) and ones that must not (keys of two headers, trusted
 * proxies, an allow-list, plans, a concurrency limit), cost rules by
 * method and path, explicit policies and cost overrides, the deny cache on and off, peers that
 * are no address, and configurations replaced between requests.
 */
class PlanCacheProperties {

    record Ask(int config, String peer, String method, String path, String apiKey, String forwarded,
               boolean explicit, long costOverride, boolean denyCache) {
    }

    static final List<Map<String, String>> CONFIGS = List.of(
            config(Map.of()),
            config(Map.of("tollgate.policy.api.cost", "3 POST /**, 1")),
            config(Map.of("tollgate.policies", "api,all", "tollgate.policy.all.limits", "100/s",
                    "tollgate.policy.all.key", "ip", "tollgate.policy.api.match", "/api/**")),
            config(Map.of("tollgate.policy.api.key", "header:X-Key,ip")),
            config(Map.of("tollgate.trusted-proxies", "192.0.2.0/24")),
            config(Map.of("tollgate.allow-list", "192.0.2.2")),
            config(Map.of("tollgate.policy.api.concurrency", "2")),
            config(Map.of("tollgate.plans", "free,pro", "tollgate.plan.default", "free",
                    "tollgate.plan.pro.role", "pro", "tollgate.policy.api.limits.pro", "50/s")),
            config(Map.of("tollgate.redis.key-format", "compact")),
            // keys that read one header besides the address: plans kept by address and header value
            config(Map.of("tollgate.policy.api.key", "header:X-Key")),
            config(Map.of("tollgate.policies", "api,all", "tollgate.policy.all.limits", "100/s",
                    "tollgate.policy.all.key", "ip", "tollgate.policy.api.key", "header:x-key+ip")),
            config(Map.of("tollgate.policy.api.key", "header:X-Key", "tollgate.redis.key-format", "compact")),
            // two headers: not kept
            config(Map.of("tollgate.policies", "api,all", "tollgate.policy.all.limits", "100/s",
                    "tollgate.policy.all.key", "header:X-Forwarded-For", "tollgate.policy.api.key", "header:X-Key")));

    private static Map<String, String> config(Map<String, String> extra) {
        Map<String, String> m = new HashMap<>(Map.of("tollgate.metrics", "none", "tollgate.jmx", "false",
                "tollgate.policies", "api", "tollgate.policy.api.limits", "10/s burst 20",
                "tollgate.policy.api.key", "ip"));
        m.putAll(extra);
        return m;
    }

    private static TollgateConfig load(Map<String, String> values) {
        return TestConfigs.withProviders(values);
    }

    @Test
    void aKeptPlanIsThePlanThatWouldBeMade() {
        qt(300).forAll(asks()).checkAssert(this::aKeptPlanIsThePlanThatWouldBeMade);
    }

    private void aKeptPlanIsThePlanThatWouldBeMade(List<Ask> asks) {
        TollgateConfig[] configs = new TollgateConfig[CONFIGS.size()];
        for (int i = 0; i < configs.length; i++) {
            configs[i] = load(CONFIGS.get(i));
        }
        RequestPlanner planner = new RequestPlanner(1_000, () -> 0L);
        for (Ask a : asks) {
            TollgateConfig c = configs[a.config()];
            TestRequest r = TestRequest.get(a.path()).method(a.method()).from(a.peer());
            if (a.apiKey() != null) {
                r.header("X-Key", a.apiKey());
            }
            if (a.forwarded() != null) {
                r.header("X-Forwarded-For", a.forwarded());
            }
            List<Policy> policies = a.explicit() ? c.policies() : RequestPlanner.matching(c, r);
            RequestPlan expected = new RequestPlanner(1_000, () -> 0L).plan(c, r, policies, a.costOverride(), a.denyCache());
            RequestPlan got = planner.plan(c, r, policies, a.costOverride(), a.denyCache());
            assertEquals(describe(expected), describe(got), () -> a.toString());
        }
    }

    /** A plan's content; a lease id is unique per request, so it is left out. */
    private static String describe(RequestPlan p) {
        if (p == null) {
            return "allow-listed";
        }
        StringBuilder sb = new StringBuilder("plan=").append(p.plan()).append(" deny=").append(p.denyCacheKey());
        for (RequestPlan.Bucket b : p.buckets()) {
            sb.append("\n  ").append(b.policy().name()).append(' ').append(b.client()).append(' ')
                    .append(b.request().key()).append(' ').append(b.request().limits()).append(' ')
                    .append(b.request().enforcing()).append(' ');
            if (b.request() instanceof BucketRequest.Take t) {
                sb.append("cost=").append(t.cost()).append(' ').append(t.algorithm());
            } else {
                sb.append(b.request().getClass().getSimpleName()); // a lease's id is left out
            }
        }
        return sb.toString();
    }

    /**
     * Two addresses whose plans go to the slot of 192.0.2.1: each replaces the other's kept plan,
     * and neither may ever be answered with the other's.
     */
    static final String[] SAME_SLOT = sameSlot("192.0.2.1");

    private static String[] sameSlot(String of) {
        int slot = PlanCache.slot(of.hashCode());
        String[] found = new String[2];
        int n = 0;
        for (int i = 0; n < 2; i++) {
            String a = "10." + ((i >> 16) & 255) + "." + ((i >> 8) & 255) + "." + (i & 255);
            if (PlanCache.slot(a.hashCode()) == slot) {
                found[n++] = a;
            }
        }
        return found;
    }

    /** The first five fields of an {@link Ask}, drawn together. */
    private record Where(int config, String peer, String method, String path, String apiKey) {
    }

    static Gen<List<Ask>> asks() {
        Gen<Integer> config = ints(0, CONFIGS.size() - 1);
        Gen<String> peer = of("192.0.2.1", "192.0.2.2", "203.0.113.9", "2001:DB8::1", "2001:db8::1",
                "not an address", "", SAME_SLOT[0], SAME_SLOT[1]);
        Gen<String> method = of("GET", "POST");
        Gen<String> path = of("/api/x", "/other", "/api/export");
        // the same key trimmed, an empty value (the address stands in), values to escape, one
        // longer than a kept value may be, one just short of it; no header at all 40% of the time
        Gen<String> apiKey = frequency(weight(4, just((String) null)), weight(6, of("k1", "k2", " k1 ", "", "a+b=c%",
                "x".repeat(PlanCache.MAX_HEADER + 1), "y".repeat(PlanCache.MAX_HEADER))));
        Gen<String> forwarded = frequency(weight(1, just((String) null)), weight(1, of("198.51.100.7", "198.51.100.8")));
        Gen<Long> cost = of(0L, 0L, 2L);
        Gen<Where> where = config.zip(peer, method, path, apiKey, Where::new);
        Gen<Ask> ask = where.zip(forwarded, bools(), cost, bools(), (w, f, e, co, d) -> new Ask(w.config(), w.peer(),
                w.method(), w.path(), w.apiKey(), f, e, co, d));
        return lists(ask, 1, 40);
    }
}
