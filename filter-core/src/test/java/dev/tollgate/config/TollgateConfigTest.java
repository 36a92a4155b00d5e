package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.TestConfigs;
import dev.tollgate.Mode;
import dev.tollgate.Policy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TollgateConfigTest {

    static TollgateConfig load(Map<String, String> values) {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test map", values)), TollgateConfigTest.class.getClassLoader());
    }

    static ConfigException problem(Map<String, String> values) {
        return assertThrows(ConfigException.class, () -> load(values));
    }

    @Test
    void theSmallestConfigurationIsOneLimit() {
        TollgateConfig c = load(Map.of("tollgate.policy.default.limits", "10/s burst 20"));
        assertTrue(c.enabled());
        assertInstanceOf(StoreSettings.InMemory.class, c.store(), "no URI: the in-memory store");
        assertEquals(FailureMode.LOCAL, c.store().failureMode());
        assertEquals(HeaderStyle.DRAFT, c.http().headers());
        Policy p = c.policies().get(0);
        assertEquals("default", p.name());
        assertEquals(20, p.limits().get(0).capacity());
        assertEquals("ip", p.keyText());
        assertEquals(Mode.ENFORCE, p.mode());
        assertEquals(1, p.cost().max());
        assertTrue(p.match().matches("GET", "/anything"));
    }

    @Test
    void everyKeyIsRead() {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.enabled", "false");
        m.put("tollgate.redis.uri", "rediss://app:s3cret@redis.example:6380/2");
        m.put("tollgate.redis.timeout", "50ms");
        m.put("tollgate.redis.failure-mode", "closed");
        m.put("tollgate.redis.pool-size", "32");
        m.put("tollgate.redis.key-prefix", "rl:");
        m.put("tollgate.headers", "both");
        m.put("tollgate.local.max-keys", "5000");
        m.put("tollgate.policies", "api, login");
        m.put("tollgate.policy.api.limits", "100/min; 5000/day");
        m.put("tollgate.policy.api.key", "header:X-Api-Key, ip");
        m.put("tollgate.policy.api.match", "/api/**");
        m.put("tollgate.policy.login.limits", "5/min");
        m.put("tollgate.policy.login.match", "POST /login");
        m.put("tollgate.policy.login.mode", "shadow");
        m.put("tollgate.policy.login.cost", "2");
        TollgateConfig c = load(m);
        assertFalse(c.enabled());
        RedisSettings r = TestConfigs.redis(c);
        assertInstanceOf(RedisSettings.Standalone.class, r.topology());
        assertEquals(List.of("redis.example:6380"), r.nodes());
        assertTrue(r.tls());
        assertEquals("app", r.user());
        assertEquals("s3cret", r.password());
        assertEquals(2, r.database());
        assertEquals(Duration.ofMillis(50), r.timeout());
        assertEquals(32, r.poolSize());
        assertEquals("rediss://app:****@redis.example:6380/2", r.describe());
        assertFalse(r.toString().contains("s3cret"));
        assertEquals(FailureMode.CLOSED, c.store().failureMode());
        assertEquals("rl:", c.store().keyPrefix());
        assertEquals(HeaderStyle.BOTH, c.http().headers());
        assertEquals(5000, c.store().localMaxKeys());
        assertEquals(2, c.policies().size());
        assertEquals(2, c.policy("api").orElseThrow().limits().size());
        Policy login = c.policy("login").orElseThrow();
        assertEquals(Mode.SHADOW, login.mode());
        assertEquals(2, login.cost().max());
        assertTrue(login.match().matches("POST", "/login"));
        assertFalse(login.match().matches("GET", "/login"));
    }

    @Test
    void environmentVariablesFollowTheMicroProfileRule() {
        ConfigSource env = ConfigSources.system(Map.of(
                "TOLLGATE_POLICY_FREE_TIER_LIMITS", "5/s",
                "tollgate_redis_timeout", "2s",
                "TOLLGATE_POLICIES", "free-tier"));
        TollgateConfig c = TollgateConfig.load(ConfigLookup.of(env), null);
        assertEquals("free-tier", c.policies().get(0).name());
        assertEquals(5, c.policies().get(0).limits().get(0).capacity());
        assertEquals("environment variable TOLLGATE_POLICY_FREE_TIER_LIMITS", env.describe("tollgate.policy.free-tier.limits"));
        assertEquals("environment variable tollgate_redis_timeout", env.describe("tollgate.redis.timeout"));
        assertEquals("TOLLGATE_POLICY_FREE_TIER_LIMITS", Settings.environmentName("tollgate.policy.free-tier.limits"));
    }

    @Test
    void theFirstSourceThatSetsAKeyWins() {
        ConfigLookup lookup = ConfigLookup.of(
                ConfigSources.of("environment", Map.of("tollgate.policy.default.limits", "1/s")),
                ConfigSources.of("init-param", Map.of("tollgate.policy.default.limits", "9/s", "tollgate.headers", "none")),
                ConfigSources.of("context-param", Map.of("tollgate.headers", "legacy", "tollgate.redis.key-prefix", "ctx:")));
        TollgateConfig c = TollgateConfig.load(lookup, null);
        assertEquals(1, c.policies().get(0).limits().get(0).capacity());
        assertEquals(HeaderStyle.NONE, c.http().headers());
        assertEquals("ctx:", c.store().keyPrefix());
    }

    @Test
    void aBlankValueCountsAsUnset() {
        ConfigLookup lookup = ConfigLookup.of(
                ConfigSources.of("a", Map.of("tollgate.policy.default.limits", "  ")),
                ConfigSources.of("b", Map.of("tollgate.policy.default.limits", "3/s")));
        assertEquals(3, TollgateConfig.load(lookup, null).policies().get(0).limits().get(0).capacity());
    }

    @ParameterizedTest(name = "{0} = ''{1}''")
    @CsvSource(delimiter = '|', value = {
        "tollgate.policy.default.limits | ten per second | '<amount>/<unit> [burst <capacity>]'",
        "tollgate.policy.default.limits | 10/s burst -3  | '<amount>/<unit> [burst <capacity>]'",
        "tollgate.policy.default.key    | fingerprint    | unknown key resolver 'fingerprint'",
        "tollgate.policy.default.key    | header:        | needs a header name",
        "tollgate.policy.default.match  | api/**         | must start with '/'",
        "tollgate.policy.default.mode   | observe        | 'enforce' or 'shadow'",
        "tollgate.policy.default.cost   | 0              | a cost must be from 1",
        "tollgate.policy.default.cost   | 21             | could never pass",
        "tollgate.redis.uri             | http://x:1     | scheme must be redis or rediss",
        "tollgate.redis.uri             | redis://       | not a URI",
        "tollgate.redis.uri             | redis://h:0    | port must be from 1 to 65535",
        "tollgate.redis.uri             | redis://h/x    | database number",
        "tollgate.redis.timeout         | fast           | not a duration",
        "tollgate.redis.timeout         | 0ms            | outside 1ms..60s",
        "tollgate.redis.timeout         | 2h             | outside 1ms..60s",
        "tollgate.redis.failure-mode    | maybe          | 'local', 'open' or 'closed'",
        "tollgate.redis.pool-size       | 100000         | outside 1..1024",
        "tollgate.redis.key-prefix      | a b{c}         | accepted set",
        "tollgate.headers               | all            | 'draft', 'legacy', 'both' or 'none'",
        "tollgate.local.max-keys        | 10             | outside 1000..",
        "tollgate.enabled               | sometimes      | 'true' or 'false'",
        "tollgate.policies              | a,a            | declared twice",
        "tollgate.policies              | a b            | not a policy name",
    })
    void aBadValueStopsStartUpNamingTheKeyTheValueAndWhatIsAccepted(String key, String value, String expected) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.policy.default.limits", "10/s burst 20");
        m.put("tollgate.policy.a.limits", "1/s");
        m.put(key, value);
        String message = problem(m).getMessage();
        assertTrue(message.contains("TOLLGATE-001"), message);
        assertTrue(message.contains(key), message);
        assertTrue(message.contains("(from test map)"), message);
        assertTrue(message.contains(expected), message);
        if (!key.equals("tollgate.redis.uri")) {
            assertTrue(message.contains("'" + value.trim() + "'"), message);
        }
    }

    @Test
    void aMissingLimitNamesTheKeyAndItsEnvironmentVariable() {
        String message = problem(Map.of("tollgate.policies", "login")).getMessage();
        assertTrue(message.contains("TOLLGATE-002: tollgate.policy.login.limits is not set"), message);
        assertTrue(message.contains("TOLLGATE_POLICY_LOGIN_LIMITS"), message);
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ConfigException e = problem(Map.of(
                "tollgate.policy.default.limits", "x",
                "tollgate.redis.timeout", "y",
                "tollgate.headers", "z"));
        assertEquals(3, e.problems().size(), e.getMessage());
    }

    static Map<String, String> sentinel(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.policy.default.limits", "1/s");
        m.put("tollgate.redis.sentinel.master", "mymaster");
        m.put("tollgate.redis.sentinel.nodes", "10.0.0.1:26379, 10.0.0.2:26379");
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    @Test
    void theSentinelsHaveTheirOwnUserAndPasswordAndTheMasterADatabase() {
        RedisSettings r = TestConfigs.redis(load(sentinel("tollgate.redis.user", "app", "tollgate.redis.password", "master-secret",
                "tollgate.redis.sentinel.user", "watcher", "tollgate.redis.sentinel.password", "sentinel-secret",
                "tollgate.redis.sentinel.database", "3")));
        RedisSettings.Sentinel sentinel = assertInstanceOf(RedisSettings.Sentinel.class, r.topology());
        assertEquals("app", r.user());
        assertEquals("master-secret", r.password());
        assertEquals("watcher", sentinel.user());
        assertEquals("sentinel-secret", sentinel.password());
        assertEquals(3, r.database());
        assertEquals("Redis master 'mymaster' as app:**** db 3 via sentinels watcher:****@[10.0.0.1:26379, 10.0.0.2:26379]",
                r.describe());
        assertFalse(r.toString().contains("secret"), r.toString());

        RedisSettings plain = TestConfigs.redis(load(sentinel()));
        assertNull(((RedisSettings.Sentinel) plain.topology()).user());
        assertNull(((RedisSettings.Sentinel) plain.topology()).password());
        assertEquals(0, plain.database());
        assertEquals("Redis master 'mymaster' via sentinels [10.0.0.1:26379, 10.0.0.2:26379]", plain.describe());
    }

    @ParameterizedTest(name = "{0} = ''{1}''")
    @CsvSource(delimiter = '|', value = {
        "tollgate.redis.sentinel.database | -1        | '-1' (from test map) is not valid: it is outside 0..2147483647",
        "tollgate.redis.sentinel.database | two       | 'two' (from test map) is not valid: it is not a whole number",
        "tollgate.redis.sentinel.user     | watcher   | a sentinel user needs tollgate.redis.sentinel.password",
        "tollgate.redis.sentinel.password | s3cr3t-pw | '****' (from test map) is not valid: it is outside",
    })
    void aBadSentinelValueIsRefusedNamingTheKey(String key, String value, String expected) {
        Map<String, String> m = sentinel(key, value);
        if (key.endsWith(".password")) {
            m.put(key, "s3cr3t\u0007pw"); // a control character: refused, and still never shown
            expected = "'****' (from test map) is not valid: it has a control character";
        }
        String message = problem(m).getMessage();
        assertTrue(message.contains("TOLLGATE-001: " + key + " = "), message);
        assertTrue(message.contains(expected), message);
        assertFalse(message.contains("s3cr3t"), message);
    }

    @ParameterizedTest(name = "{0} with {2}")
    @CsvSource(delimiter = '|', value = {
        "tollgate.redis.sentinel.user     | watcher | tollgate.redis.uri     | redis://h:6379",
        "tollgate.redis.sentinel.password | pw      | tollgate.redis.cluster | h:7000",
        "tollgate.redis.sentinel.database | 2       | tollgate.redis.uri     | redis://h:6379",
        "tollgate.redis.sentinel.database | 2       | tollgate.policies      | default",
    })
    void aSentinelKeyWithoutSentinelStopsStartUp(String key, String value, String otherKey, String otherValue) {
        String message = problem(Map.of("tollgate.policy.default.limits", "1/s", key, value, otherKey, otherValue)).getMessage();
        assertTrue(message.contains("TOLLGATE-001: " + key + " = '" + (key.endsWith("password") ? "****" : value)
                + "' (from test map) is not valid: it applies only to Sentinel"), message);
        assertTrue(message.contains(". Accepted: unset"), message);
        if (key.endsWith("database")) {
            assertTrue(message.contains("the URI's path, e.g. redis://host:6379/2"), message);
        }
    }

    @Test
    void aPasswordNeverAppearsInAMessage() {
        String message = problem(Map.of("tollgate.policy.default.limits", "1/s",
                "tollgate.redis.uri", "redis://app:hunter2@host:99999999")).getMessage();
        assertFalse(message.contains("hunter2"), message);
        assertTrue(message.contains("redis://app:****@host"), message);
    }

    /** tls=true with a redis:// URI is TLS (issue 21: it talked plaintext, silently). */
    @Test
    void tlsTrueMakesAPlainUriTls() {
        RedisSettings r = TestConfigs.redis(load(Map.of("tollgate.redis.uri", "redis://app:s3cret@redis.example:6379",
                "tollgate.redis.tls", "true", "tollgate.policy.default.limits", "10/s")));
        assertTrue(r.tls());
        assertEquals("rediss://app:****@redis.example:6379", r.describe());
        assertFalse(TestConfigs.redis(load(Map.of("tollgate.redis.uri", "redis://redis.example:6379", "tollgate.policy.default.limits",
                "10/s"))).tls());
    }

    /** A lease without a concurrency, a hold without a prefetch: refused, naming the key (issue 21: accepted and ignored). */
    @Test
    void aKeyThatOnlyAppliesBesideAnotherIsRefusedAlone() {
        String lease = problem(Map.of("tollgate.policy.default.limits", "10/s",
                "tollgate.policy.default.concurrency-lease", "30s")).getMessage();
        assertTrue(lease.contains("tollgate.policy.default.concurrency-lease = '30s'")
                && lease.contains("tollgate.policy.default.concurrency"), lease);
        String hold = problem(Map.of("tollgate.policy.default.limits", "10/s",
                "tollgate.policy.default.prefetch-hold", "200ms")).getMessage();
        assertTrue(hold.contains("tollgate.policy.default.prefetch-hold = '200ms'")
                && hold.contains("together with tollgate.policy.default.prefetch"), hold);
    }
}
