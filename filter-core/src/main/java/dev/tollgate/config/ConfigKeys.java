package dev.tollgate.config;

import java.util.Locale;

/**
 * The name of every configuration key. Keys are the public contract: they are added, never
 * renamed. What a key means, its default and how it is parsed are its {@link Settings} entry,
 * one line each. Each key can also be set as an environment variable by the MicroProfile Config
 * rule ({@link #environmentName}). Stateless and thread-safe.
 */
public final class ConfigKeys {

    private ConfigKeys() {
    }

    public static final String ENABLED = "tollgate.enabled";
    public static final String STRICT_CONFIG = "tollgate.strict-config";
    public static final String REDIS_URI = "tollgate.redis.uri";
    public static final String REDIS_TIMEOUT = "tollgate.redis.timeout";
    public static final String REDIS_FAILURE_MODE = "tollgate.redis.failure-mode";
    public static final String REDIS_POOL_SIZE = "tollgate.redis.pool-size";
    public static final String REDIS_AUTO_PIPELINING = "tollgate.redis.auto-pipelining";
    public static final String REDIS_KEY_PREFIX = "tollgate.redis.key-prefix";
    public static final String REDIS_KEY_FORMAT = "tollgate.redis.key-format";
    public static final String NAMESPACE = "tollgate.namespace";
    public static final String REDIS_CLUSTER = "tollgate.redis.cluster";
    public static final String REDIS_SENTINEL_MASTER = "tollgate.redis.sentinel.master";
    public static final String REDIS_SENTINEL_NODES = "tollgate.redis.sentinel.nodes";
    public static final String REDIS_SENTINEL_USER = "tollgate.redis.sentinel.user";
    public static final String REDIS_SENTINEL_PASSWORD = "tollgate.redis.sentinel.password";
    public static final String REDIS_SENTINEL_DATABASE = "tollgate.redis.sentinel.database";
    public static final String REDIS_USER = "tollgate.redis.user";
    public static final String REDIS_PASSWORD = "tollgate.redis.password";
    public static final String REDIS_TLS = "tollgate.redis.tls";
    public static final String REDIS_TLS_TRUSTSTORE = "tollgate.redis.tls.truststore";
    public static final String REDIS_TLS_TRUSTSTORE_PASSWORD = "tollgate.redis.tls.truststore-password";
    public static final String REDIS_TLS_KEYSTORE = "tollgate.redis.tls.keystore";
    public static final String REDIS_TLS_KEYSTORE_PASSWORD = "tollgate.redis.tls.keystore-password";
    public static final String REDIS_TLS_VERIFY_HOSTNAME = "tollgate.redis.tls.verify-hostname";
    public static final String REDIS_CIRCUIT_FAILURES = "tollgate.redis.circuit.failures";
    public static final String REDIS_CIRCUIT_OPEN_FOR = "tollgate.redis.circuit.open-for";
    public static final String POLICIES = "tollgate.policies";
    public static final String HEADERS = "tollgate.headers";
    public static final String LOCAL_MAX_KEYS = "tollgate.local.max-keys";
    public static final String JAXRS_GLOBAL = "tollgate.jaxrs.global";
    public static final String TRUSTED_PROXIES = "tollgate.trusted-proxies";
    public static final String FORWARDED_HEADER = "tollgate.forwarded-header";
    public static final String IPV4_PREFIX = "tollgate.ipv4-prefix";
    public static final String IPV6_PREFIX = "tollgate.ipv6-prefix";
    public static final String ALLOW_LIST = "tollgate.allow-list";
    public static final String RETRY_AFTER_JITTER = "tollgate.retry-after-jitter";
    public static final String METRICS = "tollgate.metrics";
    public static final String DENY_CACHE = "tollgate.deny-cache";
    public static final String RELOAD_INTERVAL = "tollgate.reload-interval";
    public static final String JMX = "tollgate.jmx";
    public static final String LOG_CLIENT_KEYS = "tollgate.log.client-keys";
    public static final String PLANS = "tollgate.plans";
    public static final String PLAN_SELECTOR = "tollgate.plan.selector";
    public static final String PLAN_DEFAULT = "tollgate.plan.default";

    /** The per-policy keys, with {@code <name>} standing for the policy's name. */
    public static final String POLICY_LIMITS = "tollgate.policy.<name>.limits";
    public static final String POLICY_KEY = "tollgate.policy.<name>.key";
    public static final String POLICY_MATCH = "tollgate.policy.<name>.match";
    public static final String POLICY_MODE = "tollgate.policy.<name>.mode";
    public static final String POLICY_COST = "tollgate.policy.<name>.cost";
    public static final String POLICY_ALGORITHM = "tollgate.policy.<name>.algorithm";
    public static final String POLICY_CONCURRENCY = "tollgate.policy.<name>.concurrency";
    public static final String POLICY_CONCURRENCY_LEASE = "tollgate.policy.<name>.concurrency-lease";
    public static final String POLICY_FAILURE_MODE = "tollgate.policy.<name>.failure-mode";
    public static final String POLICY_ZONE = "tollgate.policy.<name>.zone";
    public static final String POLICY_PLAN_LIMITS = "tollgate.policy.<name>.limits.<plan>";
    public static final String POLICY_PREFETCH = "tollgate.policy.<name>.prefetch";
    public static final String POLICY_PREFETCH_HOLD = "tollgate.policy.<name>.prefetch-hold";
    public static final String POLICY_REFUSAL_STATUS = "tollgate.policy.<name>.refusal-status";
    public static final String POLICY_REFUSAL_TYPE = "tollgate.policy.<name>.refusal-type";
    public static final String POLICY_REFUSAL_TITLE = "tollgate.policy.<name>.refusal-title";
    public static final String POLICY_REFUSAL_HEADERS = "tollgate.policy.<name>.refusal-headers";
    public static final String POLICY_MAX_WAIT = "tollgate.policy.<name>.max-wait";
    public static final String POLICY_MAX_PAUSE = "tollgate.policy.<name>.max-pause";
    public static final String PLAN_ROLE = "tollgate.plan.<plan>.role";
    public static final String PLAN_VALUE = "tollgate.plan.<plan>.value";

    /** The key of a policy, e.g. {@code policy("login", POLICY_LIMITS)} is {@code tollgate.policy.login.limits}. */
    public static String policy(String policyName, String template) {
        return template.replace("<name>", policyName);
    }

    /** The key of a plan, or of a policy's limits for a plan. */
    public static String plan(String planName, String template) {
        return template.replace("<plan>", planName);
    }

    /**
     * The environment variable for a key, by the MicroProfile Config rule: every character that
     * is not a letter or digit becomes {@code _}, then upper case.
     * {@code tollgate.policy.free-tier.limits} is {@code TOLLGATE_POLICY_FREE_TIER_LIMITS}.
     */
    public static String environmentName(String key) {
        StringBuilder sb = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            sb.append((c < 128 && Character.isLetterOrDigit(c)) ? c : '_');
        }
        return sb.toString().toUpperCase(Locale.ROOT);
    }
}
