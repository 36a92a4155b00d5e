package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A policy and cost named outside the configuration ({@code @RateLimited(value, cost)}) stay
 * payable across reloads: a reload that would make the cost exceed a burst, or remove the
 * policy, is refused and the configuration in force stays.
 */
class RequiredPolicyTest {

    final ManualClock clock = new ManualClock();
    final Map<String, String> settings = new HashMap<>(Map.of(
            "tollgate.metrics", "none", "tollgate.jmx", "false",
            "tollgate.policies", "export",
            "tollgate.policy.export.limits", "10/h burst 10"));

    RateLimiter limiter() {
        java.util.function.Supplier<TollgateConfig> load = () ->
                TestConfigs.withProviders(settings);
        return new RateLimiter(load.get(), new LocalStore(1_000, clock::nowMicros), null, System::nanoTime, null, "required", load);
    }

    @Test
    void aReloadThatMakesTheBurstSmallerThanAnAnnotatedCostIsRefused() {
        RateLimiter rl = limiter();
        rl.requirePolicy("export", 5, "@RateLimited(cost = 5) on Api#export");
        settings.put("tollgate.policy.export.limits", "10/h burst 4");
        ConfigException e = assertThrows(ConfigException.class, rl::reload);
        assertTrue(e.getMessage().contains("TOLLGATE-001"), e.getMessage());
        assertTrue(e.getMessage().contains("@RateLimited(cost = 5) on Api#export"), e.getMessage());
        assertTrue(e.getMessage().contains("tollgate.policy.export.limits"), e.getMessage());
        assertTrue(e.getMessage().contains("burst is 4"), e.getMessage());
        assertEquals("[10/h burst 10]", rl.config().policy("export").orElseThrow().limits().toString(), "the old configuration stays");
        Decision d = rl.check(TestRequest.get("/export"), rl.config().policies(), 5);
        assertTrue(d.allowed(), "and a request of cost 5 still passes: " + d);
    }

    @Test
    void aPlanLimitIsCheckedToo() {
        RateLimiter rl = limiter();
        rl.requirePolicy("export", 5, "@RateLimited(cost = 5) on Api#export");
        settings.put("tollgate.plans", "free");
        settings.put("tollgate.plan.default", "free");
        settings.put("tollgate.plan.free.role", "free");
        settings.put("tollgate.policy.export.limits.free", "1/h burst 1");
        assertThrows(ConfigException.class, rl::reload);
    }

    @Test
    void aReloadThatRemovesAnAnnotatedPolicyIsRefused() {
        RateLimiter rl = limiter();
        rl.requirePolicy("export", 0, "@RateLimited on Api#export");
        settings.put("tollgate.policies", "other");
        settings.put("tollgate.policy.other.limits", "1/s");
        ConfigException e = assertThrows(ConfigException.class, rl::reload);
        assertTrue(e.getMessage().contains("TOLLGATE-003"), e.getMessage());
        assertTrue(e.getMessage().contains("'export'"), e.getMessage());
        assertEquals(List.of("export"), rl.config().policies().stream().map(Policy::name).toList());
    }

    @Test
    void aReloadThatKeepsTheCostPayableIsApplied() {
        RateLimiter rl = limiter();
        rl.requirePolicy("export", 5, "@RateLimited(cost = 5) on Api#export");
        settings.put("tollgate.policy.export.limits", "20/h burst 5");
        assertTrue(rl.reload());
        assertFalse(rl.reload(), "nothing changed the second time");
    }

    @Test
    void aRequirementTheConfigurationInForceBreaksIsRefusedAtOnce() {
        RateLimiter rl = limiter();
        assertThrows(ConfigException.class, () -> rl.requirePolicy("export", 11, "@RateLimited(cost = 11) on Api#export"));
        assertThrows(ConfigException.class, () -> rl.requirePolicy("nope", 0, "@RateLimited(\"nope\") on Api#x"));
        settings.put("tollgate.policy.export.limits", "10/h burst 2");
        assertTrue(rl.reload(), "the refused requirements were not kept");
    }
}
