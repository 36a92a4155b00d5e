package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.TestConfigs;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What an operator sees for names Tollgate will not read, through {@link TollgateConfig#load}. */
class UnknownKeysTest {

    static TollgateConfig load(Map<String, String> values) {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test map", values)), null);
    }

    static Map<String, String> api(String... more) {
        Map<String, String> m = new HashMap<>(Map.of("tollgate.policies", "api", "tollgate.policy.api.limits", "10/s"));
        for (int i = 0; i < more.length; i += 2) {
            m.put(more[i], more[i + 1]);
        }
        return m;
    }

    @Test
    void aTypoInAnEnvironmentVariableIsReportedWithTheVariableItMeant() {
        TollgateConfig c = load(api("TOLLGATE_POLICY_API_LIMTS", "5/s"));
        assertEquals(1, c.warnings().size(), c.warnings().toString());
        String w = c.warnings().get(0);
        assertTrue(w.startsWith("TOLLGATE-004: TOLLGATE_POLICY_API_LIMTS (from test map) matches no configuration key"
                + " and is ignored; did you mean TOLLGATE_POLICY_API_LIMITS (tollgate.policy.api.limits)?"), w);
    }

    /**
     * SmallRye Config (WildFly, Payara) lists the variable TOLLGATE_DENY_CACHE as {@code tollgate.deny.cache}:
     * read, so never reported, also under strict configuration (seen on WildFly 39).
     */
    @Test
    void anEnvironmentVariableAsSmallRyeListsItIsKnown() {
        Map<String, String> m = api("tollgate.deny.cache", "false", "tollgate.redis.failure.mode", "open",
                "tollgate.policy.api.cost", "1", "tollgate.strict-config", "true");
        assertEquals(List.of(), load(m).warnings());
    }

    @Test
    void aKeyOfAPolicyThatIsNotDeclaredIsReported() {
        TollgateConfig c = load(api("tollgate.policy.login.limits", "5/min", "TOLLGATE_POLICY_LOGIN_MATCH", "POST /login"));
        assertEquals(2, c.warnings().size(), c.warnings().toString());
        for (String w : c.warnings()) {
            assertTrue(w.startsWith("TOLLGATE-005: "), w);
            // A variable shows the policy's name as the variable spells it.
            assertTrue(w.toLowerCase(java.util.Locale.ROOT).contains("is a key of policy 'login', which tollgate.policies does"
                    + " not declare (it declares api)"), w);
        }
    }

    @Test
    void thePlansExampleWithoutItsPolicyListIsRefusedAndItsKeysAreNamed() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(Map.of("tollgate.plans", "pro,free",
                "tollgate.plan.default", "free", "tollgate.policy.api.limits", "1/s", "tollgate.strict-config", "true")));
        assertTrue(e.getMessage().contains("tollgate.policy.default.limits is not set"), e.getMessage());
        assertTrue(e.getMessage().contains("tollgate.policy.api.limits (from test map) is a key of policy 'api', which"
                + " tollgate.policies does not declare (it declares default), so it is refused (tollgate.strict-config=true)"),
                e.getMessage());
    }

    @Test
    void aPlansKeyForAPlanThatIsNotDeclaredIsReported() {
        TollgateConfig c = load(api("tollgate.policy.api.limits.gold", "100/s", "TOLLGATE_PLAN_GOLD_ROLE", "vip"));
        assertEquals(2, c.warnings().size(), c.warnings().toString());
        assertTrue(c.warnings().get(0).contains("is a key of plan 'GOLD', which tollgate.plans does not declare"
                + " (it declares none)"), c.warnings().get(0));
        assertTrue(c.warnings().get(1).contains("is a key of plan 'gold'"), c.warnings().get(1));
    }

    @Test
    void caseVariantsAreNotReadAndAreReported() {
        TollgateConfig c = load(api("Tollgate_Redis_Timeout", "1s", "tollgate.Redis.Timeout", "1s",
                "tollgate.redis.uri", "redis://redis.internal"));
        assertEquals(List.of(
                "TOLLGATE-004: Tollgate_Redis_Timeout (from test map) matches no configuration key and is ignored; did you"
                        + " mean TOLLGATE_REDIS_TIMEOUT (tollgate.redis.timeout)?",
                "TOLLGATE-004: tollgate.Redis.Timeout (from test map) matches no configuration key and is ignored; did you"
                        + " mean tollgate.redis.timeout?"), c.warnings());
        assertEquals(Settings.REDIS_TIMEOUT.defaultValue(), TestConfigs.redis(c).timeout(), "neither was read");
    }

    @Test
    void aTypoInThePrefixIsCaughtToo() {
        TollgateConfig c = load(api("TOLGATE_REDIS_URI", "redis://x"));
        assertEquals(1, c.warnings().size());
        assertTrue(c.warnings().get(0).endsWith("did you mean TOLLGATE_REDIS_URI (tollgate.redis.uri)?"), c.warnings().get(0));
    }

    @Test
    void strictConfigRefusesTheStartAndNamesEveryKeyAndItsSuggestion() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(api("tollgate.strict-config", "true",
                "tollgate.redis.timout", "50ms", "TOLLGATE_HEADRES", "both")));
        assertEquals(2, e.problems().size(), e.getMessage());
        assertTrue(e.getMessage().contains("tollgate.redis.timout (from test map) matches no configuration key and is"
                + " refused (tollgate.strict-config=true); did you mean tollgate.redis.timeout?"), e.getMessage());
        assertTrue(e.getMessage().contains("TOLLGATE_HEADRES (from test map) matches no configuration key and is refused"
                + " (tollgate.strict-config=true); did you mean TOLLGATE_HEADERS (tollgate.headers)?"), e.getMessage());
    }

    /**
     * Issue 27: the variable without its S left the default policy without limits, and the start
     * stopped with TOLLGATE-002 alone. The hint comes in the same message, which the filter logs.
     */
    @Test
    void aTypoComesWithItsHintWhenAnotherProblemStopsTheStart() {
        ConfigSource environment = ConfigSources.system(Map.of("TOLLGATE_POLICY_DEFAULT_LIMIT", "10/s burst 20",
                "TOLLGATE_REDIS_URI", "redis://localhost:6379"));
        ConfigException e = assertThrows(ConfigException.class,
                () -> TollgateConfig.load(ConfigLookup.of(environment), null));
        assertEquals(1, e.problems().size(), e.getMessage());
        assertTrue(e.problems().get(0).startsWith("TOLLGATE-002: tollgate.policy.default.limits is not set"), e.getMessage());
        assertEquals(1, e.unread().size(), e.getMessage());
        String hint = "TOLLGATE-004: TOLLGATE_POLICY_DEFAULT_LIMIT (from environment variable TOLLGATE_POLICY_DEFAULT_LIMIT)"
                + " matches no configuration key and is ignored; did you mean TOLLGATE_POLICY_DEFAULT_LIMITS"
                + " (tollgate.policy.default.limits)?";
        assertEquals(hint, e.unread().get(0));
        assertEquals("Tollgate cannot start, 1 configuration problem:\n  " + e.problems().get(0)
                + "\nand a name Tollgate does not read, which may be the cause:\n  " + hint, e.getMessage());
    }

    @Test
    void withStrictConfigTheTypoIsAProblemAndNotListedTwice() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(Map.of("tollgate.strict-config", "true",
                "TOLLGATE_POLICY_DEFAULT_LIMIT", "10/s")));
        assertEquals(2, e.problems().size(), e.getMessage());
        assertEquals(List.of(), e.unread());
        assertEquals(1, e.getMessage().split("TOLLGATE_POLICY_DEFAULT_LIMIT \\(", -1).length - 1, e.getMessage());
        assertTrue(e.getMessage().contains("did you mean TOLLGATE_POLICY_DEFAULT_LIMITS"), e.getMessage());
    }

    @Test
    void aNameFarFromEveryKeyGetsNoGuess() {
        TollgateConfig c = load(api("tollgate.frobnicate-the-widgets", "yes"));
        assertEquals(List.of("TOLLGATE-004: tollgate.frobnicate-the-widgets (from test map) matches no configuration key"
                + " and is ignored; the keys are listed in docs/reference/configuration.md"), c.warnings());
    }

    @Test
    void aRefusedPolicyListBlamesNoneOfItsKeys() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(Map.of("tollgate.strict-config", "true",
                "tollgate.policies", "api, api", "tollgate.policy.api.limits", "1/s")));
        assertEquals(1, e.problems().size(), e.getMessage());
        assertTrue(e.problems().get(0).startsWith("TOLLGATE-001: tollgate.policies"), e.getMessage());
    }

    @Test
    void namesOfOtherSoftwareAreNotTollgatesBusiness() {
        assertEquals(List.of(), load(api("PATH", "/bin", "redis.uri", "x", "TOLLBOOTH_X", "1", "tollgate", "1")).warnings());
    }

    @Test
    void aSourceThatCannotListItsNamesIsReadAsBefore() {
        ConfigLookup lookup = ConfigLookup.of(ConfigSources.of("function", k -> k.equals("tollgate.policy.default.limits")
                ? "1/s" : null));
        assertEquals(List.of(), TollgateConfig.load(lookup, null).warnings());
    }

    @Test
    void theSystemSourceListsSystemPropertiesAndTheEnvironment() {
        ConfigSource s = ConfigSources.system(Map.of("TOLLGATE_REDIS_URX", "redis://x"));
        assertTrue(s.names().contains("TOLLGATE_REDIS_URX"));
        assertTrue(s.names().contains("java.version"));
        assertEquals(Map.of("TOLLGATE_REDIS_URX", "environment variable TOLLGATE_REDIS_URX"),
                Map.of("TOLLGATE_REDIS_URX", ConfigLookup.of(s).names().get("TOLLGATE_REDIS_URX")));
    }
}
