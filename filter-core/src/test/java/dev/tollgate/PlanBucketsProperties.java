package dev.tollgate;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * A client that may send requests under two plans (a pro user, and the same address without a
 * login) gets, under each plan, exactly what that plan's limits give and nothing more: each plan
 * with limits of its own counts in a bucket of its own. Were the plans to share one bucket, a
 * request under the plan with the shorter time to fill would cap, and so forgive, the debt run up
 * under the other (a refused anonymous request would hand a spent pro client most of its burst
 * back). The reference model keeps one exact bucket per (client, plan).
 */
class PlanBucketsProperties {

    static final List<String> SETS = List.of("2/s burst 3", "1/min burst 2", "100/min burst 100", "10/min burst 2",
            "1/s burst 2; 10/min burst 5");

    sealed interface Step permits Ask, Wait {
    }

    record Ask(boolean pro) implements Step {
    }

    record Wait(long micros) implements Step {
    }

    @Test
    void eachPlanCountsInItsOwnBucket() {
        qt(300).forAll(sets(), sets(), steps()).checkAssert(this::eachPlanCountsInItsOwnBucket);
    }

    private void eachPlanCountsInItsOwnBucket(String free, String pro, List<Step> steps) {
        ManualClock clock = new ManualClock();
        TollgateConfig config = TestConfigs.withProviders(
                "tollgate.metrics", "none",
                "tollgate.jmx", "false",
                "tollgate.policies", "api",
                "tollgate.plans", "free,pro",
                "tollgate.plan.default", "free",
                "tollgate.plan.pro.role", "pro",
                "tollgate.policy.api.limits", free,
                "tollgate.policy.api.limits.pro", pro);
        Map<String, BigInteger[]> model = new HashMap<>(); // plan -> arrival time per limit, in 1/n µs
        try (RateLimiter limiter = new RateLimiter(config, new LocalStore(1_000, clock::nowMicros), null,
                () -> clock.nowMicros() * 1_000L, null, "plan-buckets", null)) {
            for (Step step : steps) {
                if (step instanceof Wait w) {
                    clock.advanceMicros(w.micros());
                    continue;
                }
                boolean asPro = ((Ask) step).pro();
                TestRequest request = TestRequest.get("/api/x").from("192.0.2.1");
                Decision d = limiter.check(asPro ? request.user("u-1", "pro") : request);
                List<Limit> limits = Limit.parse(asPro ? pro : free);
                long retry = take(model.computeIfAbsent(asPro ? "pro" : "free", k -> new BigInteger[limits.size()]),
                        limits, clock.nowMicros());
                Decision.Verdict expected = retry > 0 ? Decision.Verdict.DENY : Decision.Verdict.ALLOW;
                assertEquals(expected, d.verdict(), () -> (asPro ? "pro: " : "free: ") + d);
                assertEquals(retry, d.retryAfterMicros(), () -> "the wait of the plan's own bucket: " + d);
            }
        }
    }

    /**
     * The generic cell rate algorithm from its definition, for cost 1: a limit of capacity C that
     * refills n tokens every p µs is counted in units of 1/n µs, one token being p units; the
     * bucket owes {@code d = max(0, tat - now)} and admits when {@code d + p <= C * p} for every
     * limit, then owes {@code d + p}. Returns 0 when admitted, else the µs until it would be.
     */
    static long take(BigInteger[] tats, List<Limit> limits, long nowMicros) {
        BigInteger[] debts = new BigInteger[limits.size()];
        long retry = 0;
        for (int j = 0; j < limits.size(); j++) {
            Limit l = limits.get(j);
            BigInteger n = BigInteger.valueOf(l.refillTokens());
            BigInteger now = BigInteger.valueOf(nowMicros).multiply(n);
            BigInteger p = BigInteger.valueOf(l.refillPeriodMicros());
            BigInteger full = BigInteger.valueOf(l.capacity()).multiply(p);
            debts[j] = tats[j] == null ? BigInteger.ZERO : tats[j].subtract(now).max(BigInteger.ZERO);
            BigInteger over = debts[j].add(p).subtract(full);
            if (over.signum() > 0) {
                BigInteger[] qr = over.divideAndRemainder(n);
                retry = Math.max(retry, qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0));
            }
        }
        if (retry == 0) {
            for (int j = 0; j < limits.size(); j++) {
                Limit l = limits.get(j);
                BigInteger n = BigInteger.valueOf(l.refillTokens());
                tats[j] = BigInteger.valueOf(nowMicros).multiply(n).add(debts[j]).add(BigInteger.valueOf(l.refillPeriodMicros()));
            }
        }
        return retry;
    }

    static Gen<String> sets() {
        return of(SETS);
    }

    static Gen<List<Step>> steps() {
        Gen<Step> ask = bools().map(Ask::new);
        Gen<Step> wait = longs(1, 5_000_000).map(Wait::new);
        return lists(frequency(weight(6, ask), weight(1, wait)), 1, 60);
    }
}
