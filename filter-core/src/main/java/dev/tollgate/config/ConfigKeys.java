package dev.tollgate.config;

import java.util.List;
import java.util.Locale;

/**
 * Every configuration key, in one place. Keys are the public contract: they are added, never
 * renamed. Each can also be set as an environment variable by the MicroProfile Config rule
 * ({@link #environmentName}).
 */
public final class ConfigKeys {

    private ConfigKeys() {
    }

    public static final String ENABLED = "tollgate.enabled";
    public static final String REDIS_URI = "tollgate.redis.uri";
    public static final String REDIS_TIMEOUT = "tollgate.redis.timeout";
    public static final String REDIS_FAILURE_MODE = "tollgate.redis.failure-mode";
    public static final String REDIS_POOL_SIZE = "tollgate.redis.pool-size";
    public static final String REDIS_AUTO_PIPELINING = "tollgate.redis.auto-pipelining";
    public static final String REDIS_KEY_PREFIX = "tollgate.redis.key-prefix";
    public static final String REDIS_KEY_FORMAT = "tollgate.redis.key-format";
    public static final String REDIS_CLUSTER = "tollgate.redis.cluster";
    public static final String REDIS_SENTINEL_MASTER = "tollgate.redis.sentinel.master";
    public static final String REDIS_SENTINEL_NODES = "tollgate.redis.sentinel.nodes";
    public static final String REDIS_SENTINEL_USER = "tollgate.redis.sentinel.user";
    public static final String REDIS_SENTINEL_PASSWORD = "tollgate.redis.sentinel.password";
    public static final String REDIS_SENTINEL_DATABASE = "tollgate.redis.sentinel.database";
    public static final String REDIS_USER = "tollgate.redis.user";
    public static final String REDIS_PASSWORD = "tollgate.redis.password";
    public static final String REDIS_TLS = "tollgate.redis.tls";
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
    public static final String POLICY_FAILURE_MODE = "tollgate.policy.<name>.failure-mode";
    public static final String POLICY_PLAN_LIMITS = "tollgate.policy.<name>.limits.<plan>";
    public static final String PLAN_ROLE = "tollgate.plan.<plan>.role";
    public static final String PLAN_VALUE = "tollgate.plan.<plan>.value";

    /** One documented key. */
    public record Key(String name, String defaultValue, String meaning) {
        public String environmentName() {
            return ConfigKeys.environmentName(name);
        }
    }

    /** Every key with its default and meaning; the README's table lists exactly these. */
    public static final List<Key> ALL = List.of(
            new Key(ENABLED, "true", "`false` turns Tollgate off: every request passes, no header is added"),
            new Key(REDIS_URI, "(unset: in-memory store)",
                    "standalone Redis, `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS"),
            new Key(REDIS_CLUSTER, "(unset)", "Redis Cluster seed nodes, `host:port` separated by `,`"),
            new Key(REDIS_SENTINEL_MASTER, "(unset)", "the master's name for Sentinel, with `tollgate.redis.sentinel.nodes`"),
            new Key(REDIS_SENTINEL_NODES, "(unset)", "the sentinels, `host:port` separated by `,`"),
            new Key(REDIS_SENTINEL_USER, "(none)", "the sentinels' own ACL user, with `tollgate.redis.sentinel.password`"),
            new Key(REDIS_SENTINEL_PASSWORD, "(none)", "the sentinels' own password (`requirepass` of the sentinels;"
                    + " never logged); `tollgate.redis.password` is the master's"),
            new Key(REDIS_SENTINEL_DATABASE, "0", "the database of the master found through the sentinels"
                    + " (a standalone server takes it from the URI's `/db`; a Cluster has database 0 only)"),
            new Key(REDIS_USER, "(from the URI)", "ACL user name"),
            new Key(REDIS_PASSWORD, "(from the URI)", "password (never logged)"),
            new Key(REDIS_TLS, "false", "TLS for Cluster and Sentinel (a standalone URI says `rediss://`)"),
            new Key(REDIS_TIMEOUT, "100ms", "time budget of one Redis call, borrow, connect and answer together, e.g. `50ms`, `1s`"),
            new Key(REDIS_FAILURE_MODE, "local",
                    "when Redis fails: `local` (decide on this node's memory), `open` (let through), `closed` (answer 503)"),
            new Key(REDIS_CIRCUIT_FAILURES, "3", "consecutive Redis failures that open the circuit (stop calling Redis)"),
            new Key(REDIS_CIRCUIT_OPEN_FOR, "1s", "how long the circuit stays open before one request probes Redis (again after each failed probe)"),
            new Key(REDIS_POOL_SIZE, "16", "most connections per Redis server"),
            new Key(REDIS_AUTO_PIPELINING, "true", "send concurrent decisions together, pipelined on shared connections"
                    + " (standalone and Sentinel; a Cluster call always goes alone); `false`: one connection per call"),
            new Key(REDIS_KEY_PREFIX, "tollgate:", "prefix of every Redis key"),
            new Key(REDIS_KEY_FORMAT, "readable", "`readable` (`tollgate:{ip=203.0.113.7}:api`) or `compact` (hashed client and"
                    + " policy: 56 bytes per one-limit bucket with a prefix of at most two characters, instead of 88)"),
            new Key(POLICIES, "default", "names of the policies, comma-separated, in order of precedence"),
            new Key(POLICY_LIMITS, "(required)", "one or more limits, e.g. `10/s burst 20; 1000/day`"),
            new Key(POLICY_KEY, "ip",
                    "what identifies a client: `ip`, `header:<Name>`, `principal`, `route`, joined by `+`;"
                            + " alternatives separated by `,` (the first that is present wins, else `ip`)"),
            new Key(POLICY_MATCH, "/**", "which requests: `[METHOD[|METHOD]] /pattern`, several separated by `,`"),
            new Key(POLICY_MODE, "enforce", "`enforce` (answer 429) or `shadow` (log and let through)"),
            new Key(POLICY_COST, "1", "tokens a request takes: a number, or `<cost> [METHOD] /pattern` entries tried in order"
                    + " (`10 GET /export/**, 1`); at most the smallest burst of the policy"),
            new Key(POLICY_FAILURE_MODE, "(tollgate.redis.failure-mode)", "this policy's own failure mode: `local`, `open` or `closed`"),
            new Key(POLICY_ALGORITHM, "token-bucket",
                    "`token-bucket`, or `sliding-log` (at most N in any window, exactly; N up to 10000)"),
            new Key(POLICY_PLAN_LIMITS, "(the policy's limits)", "the limits of clients on plan `<plan>`"),
            new Key(HEADERS, "draft",
                    "response headers: `draft` (`RateLimit-Policy`, `RateLimit`), `legacy` (`X-RateLimit-*`), `both`, `none`"),
            new Key(LOCAL_MAX_KEYS, "100000", "most buckets the in-memory store keeps (least recently used go first)"),
            new Key(JAXRS_GLOBAL, "false",
                    "JAX-RS: `true` applies the policies by `match` to resources without `@RateLimited` too"),
            new Key(TRUSTED_PROXIES, "(none)",
                    "proxies whose forwarding header is believed: addresses and CIDR ranges, e.g. `10.0.0.0/8, ::1`"),
            new Key(FORWARDED_HEADER, "x-forwarded-for", "the header the trusted proxies write: `x-forwarded-for` or `forwarded` (RFC 7239)"),
            new Key(IPV4_PREFIX, "32", "IPv4 clients are grouped by this prefix length"),
            new Key(IPV6_PREFIX, "64", "IPv6 clients are grouped by this prefix length, so a host cannot rotate through its subnet"),
            new Key(ALLOW_LIST, "(none)", "clients never limited: addresses, ranges, `principal:<name>`, `role:<role>`"),
            new Key(RETRY_AFTER_JITTER, "0s", "up to this much is added at random to `Retry-After`, e.g. `3s`"),
            new Key(DENY_CACHE, "true", "refuse a client known to be over its limit from memory until its Retry-After,"
                    + " without asking Redis (a flood then costs one Redis call per refusal window)"),
            new Key(METRICS, "auto", "where metrics go: `auto` (OpenTelemetry, Micrometer, MicroProfile Metrics: whichever the"
                    + " application has, the server's registry first), or some of `opentelemetry`, `micrometer`, `microprofile`; `none`"),
            new Key(RELOAD_INTERVAL, "0s", "how often the configuration is read again, e.g. `30s`; `0s` never (a reload can"
                    + " also be called, through JMX)"),
            new Key(JMX, "true", "`false` registers no JMX bean `dev.tollgate:type=RateLimiter`"),
            new Key(PLANS, "(none)", "names of the plans, e.g. `internal,pro,free`"),
            new Key(PLAN_SELECTOR, "role",
                    "how a request's plan is found: `role` (the first plan whose role the principal has) or `header:<Name>`"
                            + " (believed only from trusted proxies)"),
            new Key(PLAN_DEFAULT, "(required with plans)", "the plan of a request that shows none"),
            new Key(PLAN_ROLE, "<plan>", "the role that selects plan `<plan>`"),
            new Key(PLAN_VALUE, "<plan>", "the header value that selects plan `<plan>`"));

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
