package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Costs;
import dev.tollgate.RequestMatcher;
import dev.tollgate.testing.TestConfigs;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void everyDefaultWrittenAsAValueIsAcceptedByItsOwnParser() {
        for (Setting<?> s : Settings.ALL) {
            Setting<?> concrete = s.forPolicy("api").forPlan("pro");
            if (!concrete.defaultText().startsWith("(")) {
                concrete.parse(concrete.defaultText()); // throws if the default is not a value the key accepts
                concrete.defaultValue();
            }
        }
    }

    @Test
    void theDefaultsAreWhatAnEmptyConfigurationLoads() {
        TollgateConfig c = TestConfigs.of("tollgate.policy.default.limits", "1/s");
        assertEquals(Settings.ENABLED.defaultValue(), c.enabled());
        assertEquals(Settings.REDIS_FAILURE_MODE.defaultValue(), c.store().failureMode());
        assertEquals(Settings.REDIS_KEY_PREFIX.defaultValue(), c.store().keyPrefix());
        assertEquals(Settings.HEADERS.defaultValue(), c.http().headers());
        assertEquals(Settings.LOCAL_MAX_KEYS.defaultValue(), c.store().localMaxKeys());
        assertEquals(Settings.RELOAD_INTERVAL.defaultValue(), c.runtime().reloadInterval());
        assertEquals(Duration.ZERO, c.http().retryAfterJitter());
        assertSame(RequestMatcher.ALL, c.policies().get(0).match(), "an unset match is ALL itself: Policy.hasMatch tells by identity");
        assertSame(Costs.ONE, c.policies().get(0).cost());
        assertEquals("ip", c.policies().get(0).keyText());
        RedisSettings r = RedisSettings.standalone("h", 1, Settings.REDIS_TIMEOUT.defaultValue());
        assertEquals(16, r.poolSize());
        assertEquals(3, r.circuitFailures());
        assertEquals(Duration.ofSeconds(1), r.circuitOpenFor());
        assertTrue(r.autoPipelining());
    }

    @Test
    void aTemplateBecomesThePolicysAndThePlansKeyAndVariable() {
        Setting<?> s = Settings.POLICY_PLAN_LIMITS.forPolicy("free-tier").forPlan("pro");
        assertEquals("tollgate.policy.free-tier.limits.pro", s.name());
        assertEquals("TOLLGATE_POLICY_<NAME>_LIMITS_<PLAN>", Settings.POLICY_PLAN_LIMITS.environmentName());
        assertEquals("TOLLGATE_POLICY_FREE_TIER_LIMITS_PRO", s.environmentName());
        assertEquals("gold", Settings.PLAN_ROLE.forPlan("gold").defaultValue(), "a plan's role is its name by default");
    }

    @Test
    void everySettingNamesItsOwnKeyOnceUnderTollgate() {
        Set<String> names = new HashSet<>();
        for (Setting<?> s : Settings.ALL) {
            assertTrue(names.add(s.name()), s.name() + " twice");
            assertTrue(s.name().matches("tollgate\\.[a-z0-9<>.-]+"), s.name());
        }
        assertTrue(names.contains("tollgate.redis.uri") && names.contains("tollgate.policy.<name>.limits"), names.toString());
    }
}
