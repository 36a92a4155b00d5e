package dev.tollgate.config;

import dev.tollgate.config.text.Accepted;
import dev.tollgate.AddressRanges;
import dev.tollgate.Algorithm;
import dev.tollgate.AllowList;
import dev.tollgate.CalendarWindow;
import dev.tollgate.ClientAddresses;
import dev.tollgate.Concurrency;
import dev.tollgate.Costs;
import dev.tollgate.HttpAnswer;
import dev.tollgate.Limit;
import dev.tollgate.Mode;
import dev.tollgate.Policy;
import dev.tollgate.Prefetch;
import dev.tollgate.Refusal;
import dev.tollgate.RequestMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * Every configuration key, typed, one line each: name, default, what is accepted, parser and
 * meaning. The parse ({@link TollgateConfig#load}), the defaults ({@link RedisSettings#standalone})
 * and the configuration reference, docs/reference/configuration.md (generated from {@link #GROUPS}
 * and checked by {@code ReferencePagesTest}), all come from here. A key is added by its name in
 * one line here (the key's name is written there, once) and its place in a {@link Group}; it is then documented and
 * known to the unknown-key check, and its reader calls {@code get} on it. Keys are the public
 * contract: added, never renamed.
 *
 * <p>Over 300 lines of source only because each key's documentation is here, where it cannot
 * drift from the key. Immutable and thread-safe.
 */
public final class Settings {

    private Settings() {
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
        return sb.toString().toUpperCase(java.util.Locale.ROOT);
    }

    private static final List<Setting<?>> ALL_IN_ORDER = new ArrayList<>();

    private static final String DURATION = Accepted.DURATION;
    private static final String FAILURE_MODES = "'local', 'open' or 'closed'";

    public static final Setting<Boolean> ENABLED = flag("tollgate.enabled", true,
            "`false` turns Tollgate off: every request passes, no header is added");
    public static final Setting<Boolean> STRICT_CONFIG = flag("tollgate.strict-config", false,
            "`true` refuses to start when a `tollgate.*` key or `TOLLGATE_*` variable matches no key, or belongs to a"
                    + " policy or plan that is not declared (`TOLLGATE-004`); `false` logs a warning for each");
    public static final Setting<RedisSettings> REDIS_URI = add("tollgate.redis.uri", "(unset: in-memory store)", null,
            "'redis://[user:password@]host[:port][/db]' or 'rediss://...' for TLS", RedisUris::parse,
            "standalone Redis, `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS");
    public static final Setting<List<String>> REDIS_CLUSTER = add("tollgate.redis.cluster", "(unset)", null,
            Parsers.NODES, Parsers::nodes, "Redis Cluster seed nodes, `host:port` separated by `,`");
    public static final Setting<String> REDIS_SENTINEL_MASTER = add("tollgate.redis.sentinel.master", "(unset)", null,
            Parsers.OPAQUE, Parsers::opaque, "the master's name for Sentinel, with `tollgate.redis.sentinel.nodes`");
    public static final Setting<List<String>> REDIS_SENTINEL_NODES = add("tollgate.redis.sentinel.nodes", "(unset)", null,
            Parsers.NODES, Parsers::nodes, "the sentinels, `host:port` separated by `,`");
    public static final Setting<String> REDIS_SENTINEL_USER = add("tollgate.redis.sentinel.user", "(none)", null,
            Parsers.OPAQUE, Parsers::opaque, "the sentinels' own ACL user, with `tollgate.redis.sentinel.password`");
    public static final Setting<String> REDIS_SENTINEL_PASSWORD = add("tollgate.redis.sentinel.password", "(none)", null,
            Parsers.OPAQUE, Parsers::opaque, "the sentinels' own password (`requirepass` of the sentinels; never logged);"
                    + " `tollgate.redis.password` is the master's");
    public static final Setting<Integer> REDIS_SENTINEL_DATABASE = add("tollgate.redis.sentinel.database", "0",
            "a whole number from 0 to 2147483647 (Redis has databases 0 to 15 unless its 'databases' setting says more)",
            Parsers.intIn(0, Integer.MAX_VALUE), "the database of the master found through the sentinels"
                    + " (a standalone server takes it from the URI's `/db`; a Cluster has database 0 only)");
    public static final Setting<String> REDIS_USER = add("tollgate.redis.user", "(from the URI)", null,
            Parsers.OPAQUE, Parsers::opaque, "ACL user name");
    public static final Setting<String> REDIS_PASSWORD = add("tollgate.redis.password", "(from the URI)", null,
            Parsers.OPAQUE, Parsers::opaque, "password (never logged)");
    public static final Setting<Boolean> REDIS_TLS = flag("tollgate.redis.tls", false,
            "TLS to Redis, for every topology; a standalone URI may say `rediss://` instead (`true` with `redis://` is TLS too)");
    public static final Setting<String> REDIS_TLS_TRUSTSTORE = add("tollgate.redis.tls.truststore", "(the JVM's)", null,
            Accepted.TLS_TRUSTSTORE, Parsers::opaque,
            "the CAs that sign Redis' certificate: a PKCS12 or JKS file, or a PEM bundle");
    public static final Setting<String> REDIS_TLS_TRUSTSTORE_PASSWORD = add("tollgate.redis.tls.truststore-password",
            "(none)", null, Parsers.OPAQUE, Parsers::opaque,
            "the trust store's password (never logged); a PEM bundle needs none");
    public static final Setting<String> REDIS_TLS_KEYSTORE = add("tollgate.redis.tls.keystore", "(none)", null,
            Accepted.TLS_KEYSTORE, Parsers::opaque,
            "the client's key and certificate, for Redis' `tls-auth-clients`: a PKCS12 or JKS file, or a PEM file"
                    + " of an unencrypted PKCS#8 key and its certificate chain");
    public static final Setting<String> REDIS_TLS_KEYSTORE_PASSWORD = add("tollgate.redis.tls.keystore-password",
            "(none)", null, Parsers.OPAQUE, Parsers::opaque, "the key store's password, also its key's (never logged)");
    public static final Setting<String> REDIS_TLS_KEY = add("tollgate.redis.tls.key", "(none)", null,
            Accepted.TLS_KEY, Parsers::opaque, "the client's private key as a PEM file (unencrypted PKCS#8, as cert-manager"
                    + " writes `tls.key` with `encoding: PKCS8`), with `tollgate.redis.tls.certificate`; instead of a key store");
    public static final Setting<String> REDIS_TLS_CERTIFICATE = add("tollgate.redis.tls.certificate", "(none)", null,
            Accepted.TLS_CERTIFICATE, Parsers::opaque, "the client's certificate chain as a PEM file (cert-manager's"
                    + " `tls.crt`), with `tollgate.redis.tls.key`");
    public static final Setting<Boolean> REDIS_TLS_VERIFY_HOSTNAME = flag("tollgate.redis.tls.verify-hostname", true,
            "whether Redis' certificate must name the host connected to (`false`: any name the CA signed)");
    public static final Setting<Duration> REDIS_TIMEOUT = add("tollgate.redis.timeout", "100ms",
            "from 1ms to 60s: " + DURATION, Parsers.durationIn(Duration.ofMillis(1), Duration.ofSeconds(60)),
            "time budget of one Redis call, borrow, connect and answer together, e.g. `50ms`, `1s`");
    public static final Setting<FailureMode> REDIS_FAILURE_MODE = add("tollgate.redis.failure-mode", "local",
            FAILURE_MODES, Parsers.word(FailureMode.class),
            "when Redis fails: `local` (decide on this node's memory), `open` (let through), `closed` (answer 503)");
    public static final Setting<Integer> REDIS_CIRCUIT_FAILURES = add("tollgate.redis.circuit.failures", "3",
            "a whole number from 1 to 1000", Parsers.intIn(1, 1000),
            "consecutive Redis failures that open the circuit (stop calling Redis)");
    public static final Setting<Duration> REDIS_CIRCUIT_OPEN_FOR = add("tollgate.redis.circuit.open-for", "1s",
            "from 10ms to 5min: " + DURATION, Parsers.durationIn(Duration.ofMillis(10), Duration.ofMinutes(5)),
            "how long the circuit stays open before one request probes Redis (again after each failed probe)");
    public static final Setting<Integer> REDIS_POOL_SIZE = add("tollgate.redis.pool-size", "16",
            "a whole number from 1 to 1024", Parsers.intIn(1, 1024), "most connections per Redis server");
    public static final Setting<Boolean> REDIS_AUTO_PIPELINING = flag("tollgate.redis.auto-pipelining", true,
            "send concurrent decisions together, pipelined on shared connections (in a Cluster, per master);"
                    + " `false`: one connection per call");
    public static final Setting<String> REDIS_KEY_PREFIX = add("tollgate.redis.key-prefix", "tollgate:",
            "up to 64 letters, digits and '_', '.', ':', '/', '-'", Parsers::keyPrefix, "prefix of every Redis key");
    public static final Setting<Boolean> REDIS_KEY_FORMAT = add("tollgate.redis.key-format", "readable",
            "'readable' or 'compact'", Parsers::compactKeys, "`readable` (`tollgate:/shop:{ip=203.0.113.7}:api`) or `compact`"
                    + " (hashed namespace, client and policy: 88 bytes per one-limit bucket with a prefix of at most two"
                    + " characters, instead of 120 to 136)");
    /** Unset: what the container says the application is ({@link ConfigSources#application}), else {@code default}. */
    public static final Setting<String> NAMESPACE = add("tollgate.namespace", "(the application's context path)", null,
            Parsers.OPAQUE, Parsers::opaque, "the namespace in every key: nodes of one namespace share buckets, two"
                    + " namespaces never do. Unset: the servlet context's path (at the root path its display name, if"
                    + " it has one), so two applications on one Redis are apart; set the same value in two applications"
                    + " only to share their clients' buckets on purpose (see [Redis](../redis.md#namespaces))");
    public static final Setting<List<String>> POLICIES = add("tollgate.policies", "default",
            "names of 1 to 64 letters, digits, '_', '.' or '-', separated by ','",
            v -> Parsers.names(v, Policy.NAME, "policy"), "names of the policies, comma-separated (their order decides"
                    + " no verdict: see [Matching and order](../policies.md#matching-and-order))");
    public static final Setting<List<Limit>> POLICY_LIMITS = add("tollgate.policy.<name>.limits", "(required without concurrency)", null,
            Limit.SYNTAX, Limit::parse, "one or more limits, e.g. `10/s burst 20; 1000/day`");
    /** Text here; {@link PolicyReader} parses it with the class path's key resolvers. */
    public static final Setting<String> POLICY_KEY = add("tollgate.policy.<name>.key", "ip", Accepted.KEY_RESOLVER,
            Function.identity(), "what identifies a client: `ip`, `header:<Name>`, `principal`, `route`, joined by `+`;"
                    + " alternatives separated by `,` (the first that is present wins, else `ip`)");
    /** Unset is {@link RequestMatcher#ALL} itself, which is how a policy knows it has no {@code match} of its own. */
    public static final Setting<RequestMatcher> POLICY_MATCH = add("tollgate.policy.<name>.match", "/**",
            RequestMatcher.ALL, Accepted.REQUEST_PATTERN, RequestMatcher::parse,
            "which requests: `[METHOD[|METHOD]] /pattern`, several separated by `,`; unset, every request but for a"
                    + " policy a `@RateLimited` names: only there (see [Matching and order](../policies.md#matching-and-order))");
    public static final Setting<Mode> POLICY_MODE = add("tollgate.policy.<name>.mode", "enforce",
            "'enforce' or 'shadow'", Parsers.word(Mode.class), "`enforce` (answer 429) or `shadow` (log and let through)");
    public static final Setting<Costs> POLICY_COST = add("tollgate.policy.<name>.cost", "1", Costs.ONE, Costs.SYNTAX,
            Costs::parse, "tokens a request takes: a number, or `<cost> [METHOD] /pattern` entries tried in order"
                    + " (`10 GET /export/**, 1`); at most the smallest burst of the policy");
    public static final Setting<FailureMode> POLICY_FAILURE_MODE = add("tollgate.policy.<name>.failure-mode",
            "(tollgate.redis.failure-mode)", null, FAILURE_MODES, Parsers.word(FailureMode.class),
            "this policy's own failure mode: `local`, `open` or `closed`");
    public static final Setting<Algorithm> POLICY_ALGORITHM = add("tollgate.policy.<name>.algorithm", "token-bucket",
            "'token-bucket', 'sliding-log', or 'calendar' (what calendar limits imply)", Parsers.word(Algorithm.class),
            "`token-bucket`, or `sliding-log` (at most N in any window, exactly; N up to 10000); calendar limits"
                    + " imply `calendar`");
    public static final Setting<java.time.ZoneId> POLICY_ZONE = add("tollgate.policy.<name>.zone", "UTC",
            CalendarWindow.DEFAULT_ZONE, CalendarWindow.ZONE_SYNTAX, CalendarWindow::parseZone,
            "the time zone whose hours, days and months the policy's calendar quotas follow, e.g. `Europe/Berlin`");
    public static final Setting<Integer> POLICY_CONCURRENCY = add("tollgate.policy.<name>.concurrency", "(none)", null,
            "a whole number from 1 to " + Concurrency.MAX_SLOTS, Parsers.intIn(1, Concurrency.MAX_SLOTS),
            "at most this many requests of one client in flight at once, across every node sharing the store; a"
                    + " policy may have `limits`, `concurrency` or both");
    public static final Setting<Duration> POLICY_CONCURRENCY_LEASE = add("tollgate.policy.<name>.concurrency-lease", "60s",
            "from 1s to 24h: " + DURATION, Parsers.durationIn(Concurrency.MIN_LEASE, Concurrency.MAX_LEASE),
            "how long a slot is held at most: a node that dies frees its slots after it, and a request running"
                    + " longer no longer counts");
    public static final Setting<List<Limit>> POLICY_PLAN_LIMITS = add("tollgate.policy.<name>.limits.<plan>",
            "(the policy's limits)", null, Limit.SYNTAX, Limit::parse, "the limits of clients on plan `<plan>`");
    public static final Setting<Integer> POLICY_PREFETCH = add("tollgate.policy.<name>.prefetch", "(none)", null,
            "a whole number from " + Prefetch.MIN_TOKENS + " to " + Prefetch.MAX_TOKENS + ", at most the policy's"
                    + " smallest burst and what its slowest rate refills in a hold, for a token-bucket policy without"
                    + " concurrency",
            Parsers.intIn(Prefetch.MIN_TOKENS, Prefetch.MAX_TOKENS),
            "token leasing, off when unset: a node takes this many tokens of a client's bucket in one Redis call and"
                    + " hands them out itself (see [Token leasing](../guarantees.md#token-leasing-at-most-k-per-node-beyond-the-buckets-bound)); at most the smallest burst and what the slowest rate"
                    + " refills in `prefetch-hold`; token-bucket policies without concurrency only");
    public static final Setting<Duration> POLICY_PREFETCH_HOLD = add("tollgate.policy.<name>.prefetch-hold", "200ms",
            "from 1ms to 10s: " + DURATION, Parsers.durationIn(Prefetch.MIN_HOLD, Prefetch.MAX_HOLD),
            "how long a node hands out the tokens of one prefetch, from when it asked for them; those left then are"
                    + " dropped, never given back");
    public static final Setting<Integer> POLICY_REFUSAL_STATUS = add("tollgate.policy.<name>.refusal-status", "429",
            Refusal.STATUS_SYNTAX, Refusal::parseStatus, "the status of this policy's refusal, 400 to 599, e.g. `503`"
                    + " (see [Shaping the refusal](../http.md#shaping-the-refusal))");
    public static final Setting<String> POLICY_REFUSAL_TYPE = add("tollgate.policy.<name>.refusal-type", "(IANA quota-exceeded)",
            Refusal.QUOTA_EXCEEDED, Refusal.TYPE_SYNTAX, Refusal::checkType, "the problem `type` of this policy's refusal,"
                    + " an absolute URI");
    public static final Setting<String> POLICY_REFUSAL_TITLE = add("tollgate.policy.<name>.refusal-title",
            "(IANA quota-exceeded title)", Refusal.QUOTA_EXCEEDED_TITLE, Refusal.TITLE_SYNTAX, Refusal::checkTitle,
            "the problem `title` of this policy's refusal");
    public static final Setting<List<HttpAnswer.Header>> POLICY_REFUSAL_HEADERS = add("tollgate.policy.<name>.refusal-headers",
            "(none)", List.of(), Refusal.HEADERS_SYNTAX, Refusal::parseHeaders,
            "extra headers on this policy's refusal: `Name: value` pairs separated by `;`");
    public static final Setting<Duration> POLICY_MAX_WAIT = add("tollgate.policy.<name>.max-wait", "5s",
            "from 0s to 10min: " + DURATION, Parsers.durationIn(Duration.ZERO, Duration.ofMinutes(10)),
            "outbound calls (`TollgateClientFilter`): how long a call may wait for its token; a call that would wait"
                    + " longer fails at once, without calling the remote (`0s`: never wait)");
    public static final Setting<Duration> POLICY_MAX_PAUSE = add("tollgate.policy.<name>.max-pause", "5min",
            "from 1s to 24h: " + DURATION, Parsers.durationIn(Duration.ofSeconds(1), Duration.ofHours(24)),
            "outbound calls: the longest pause a remote's `Retry-After` or `RateLimit` field sets for every node; a"
                    + " longer, negative or unreadable one is clamped to it");
    public static final Setting<HeaderStyle> HEADERS = add("tollgate.headers", "draft",
            "'draft', 'legacy', 'both' or 'none'", Parsers.word(HeaderStyle.class),
            "response headers: `draft` (`RateLimit-Policy`, `RateLimit`), `legacy` (`X-RateLimit-*`), `both`, `none`");
    public static final Setting<Integer> LOCAL_MAX_KEYS = add("tollgate.local.max-keys", "100000",
            "a whole number from 1000 to 100000000", Parsers.intIn(1000, 100_000_000),
            "most buckets the in-memory store keeps (least recently used go first)");
    public static final Setting<Boolean> JAXRS_GLOBAL = flag("tollgate.jaxrs.global", false,
            "JAX-RS: `true` applies the policies by `match` to resources without `@RateLimited` too");
    /** Package-private: its type is internal. */
    static final Setting<AddressRanges> TRUSTED_PROXIES = add("tollgate.trusted-proxies", "(none)",
            AddressRanges.NONE, AddressRanges.SYNTAX, Parsers::someAddresses,
            "proxies whose forwarding header is believed: addresses and CIDR ranges, e.g. `10.0.0.0/8, ::1`");
    public static final Setting<ClientAddresses.Header> FORWARDED_HEADER = add("tollgate.forwarded-header",
            "x-forwarded-for", "'x-forwarded-for' or 'forwarded'", Parsers.word(ClientAddresses.Header.class),
            "the header the trusted proxies write: `x-forwarded-for` or `forwarded` (RFC 7239)");
    public static final Setting<Integer> IPV4_PREFIX = add("tollgate.ipv4-prefix", "32", "a prefix length from 8 to 32",
            Parsers.intIn(8, 32), "IPv4 clients are grouped by this prefix length");
    public static final Setting<Integer> IPV6_PREFIX = add("tollgate.ipv6-prefix", "64",
            "a prefix length from 16 to 128", Parsers.intIn(16, 128),
            "IPv6 clients are grouped by this prefix length, so a host cannot rotate through its subnet");
    public static final Setting<AllowList> ALLOW_LIST = add("tollgate.allow-list", "(none)", AllowList.NONE,
            AllowList.SYNTAX, AllowList::parse,
            "clients never limited: addresses, ranges, `principal:<name>`, `role:<role>`");
    public static final Setting<Duration> RETRY_AFTER_JITTER = add("tollgate.retry-after-jitter", "0s",
            "from 0s to 1h: " + DURATION, Parsers.durationIn(Duration.ZERO, Duration.ofHours(1)),
            "up to this much is added at random to `Retry-After`, e.g. `3s`");
    public static final Setting<Boolean> DENY_CACHE = flag("tollgate.deny-cache", true,
            "refuse a client known to be over its limit from memory until its Retry-After, without asking Redis"
                    + " (a flood then costs one Redis call per refusal window)");
    public static final Setting<String> METRICS = add("tollgate.metrics", "auto",
            "'auto', 'none', or some of 'opentelemetry', 'micrometer', 'microprofile' separated by ','", Parsers::metrics,
            "where metrics go: `auto` (OpenTelemetry, Micrometer, MicroProfile Metrics: whichever the application has,"
                    + " the server's registry first), or some of `opentelemetry`, `micrometer`, `microprofile`; `none`");
    public static final Setting<Duration> RELOAD_INTERVAL = add("tollgate.reload-interval", "0s",
            "0s (never) or from 1s to 1h: " + DURATION, Parsers::reloadInterval,
            "how often the configuration is read again, e.g. `30s`; `0s` never (a reload can also be called,"
                    + " through JMX)");
    public static final Setting<Boolean> JMX = flag("tollgate.jmx", true,
            "`false` registers no JMX bean `dev.tollgate:type=RateLimiter`");
    public static final Setting<String> HEALTH_PATH = add("tollgate.health.path", "(off)", null, Parsers.HEALTH_PATH,
            Parsers::healthPath, "the servlet filter answers readiness and liveness at this path inside the application,"
                    + " in MicroProfile Health's JSON (`<path>`, `<path>/ready`, `<path>/live`), e.g. `/health/tollgate`;"
                    + " unset: no such path");
    /** Package-private: its type is internal; read through {@link HealthSettings}. */
    static final Setting<AddressRanges> HEALTH_ALLOW = add("tollgate.health.allow", "127.0.0.0/8, ::1", null,
            AddressRanges.SYNTAX, Parsers::someAddresses, "the connection addresses `tollgate.health.path` answers"
                    + " (the peer's, never a forwarded one); any other gets 404");
    public static final Setting<Boolean> LOG_CLIENT_KEYS = add("tollgate.log.client-keys", "masked",
            "'masked' or 'clear'", Parsers::clearClientKeys, "how log lines name a client: `masked` (its key's kind and"
                    + " a fingerprint, e.g. `header.x-api-key#5f0c2a9e41d7`, keyed anew at each start) or `clear` (the"
                    + " whole key, an API key or an address as sent: for debugging only)");
    public static final Setting<List<String>> PLANS = add("tollgate.plans", "(none)", List.of(),
            "plan names separated by ','", v -> Parsers.names(v, Policy.NAME, "plan"),
            "names of the plans, e.g. `internal,pro,free`");
    /** Text here; {@link PolicyReader} tells {@code role} from {@code header:<Name>}. */
    public static final Setting<String> PLAN_SELECTOR = add("tollgate.plan.selector", "role",
            "'role' or 'header:<Name>'", Function.identity(), "how a request's plan is found: `role` (the first plan"
                    + " whose role the principal has) or `header:<Name>` (believed only from trusted proxies)");
    public static final Setting<String> PLAN_DEFAULT = add("tollgate.plan.default", "(required with plans)", null,
            "one of the declared plans", Function.identity(), "the plan of a request that shows none");
    public static final Setting<String> PLAN_ROLE = add("tollgate.plan.<plan>.role", "<plan>",
            Parsers.MARKER, Parsers::marker, "the role that selects plan `<plan>`");
    public static final Setting<String> PLAN_VALUE = add("tollgate.plan.<plan>.value", "<plan>",
            Parsers.MARKER, Parsers::marker, "the header value that selects plan `<plan>`");

    /** Every setting, in the order of their lines here. */
    public static final List<Setting<?>> ALL = Collections.unmodifiableList(ALL_IN_ORDER);

    /**
     * A section of the configuration reference: a title, what its keys are for (Markdown), and its
     * keys in the order the page lists them. Immutable.
     */
    public record Group(String title, String about, List<Setting<?>> settings) {
        public Group {
            settings = List.copyOf(settings);
        }
    }

    /**
     * Every setting, each in exactly one group ({@code ReferencePagesTest} checks it), in the order of
     * docs/reference/configuration.md.
     */
    public static final List<Group> GROUPS = List.of(
            new Group("Tollgate as a whole", "Whether Tollgate runs, how strictly it reads its configuration,"
                    + " and where JAX-RS applies it.", List.of(ENABLED, STRICT_CONFIG, JAXRS_GLOBAL)),
            new Group("Redis: where and who", "At most one of `tollgate.redis.uri`, `tollgate.redis.cluster` and"
                    + " `tollgate.redis.sentinel.master` is set; with none, Tollgate uses its in-memory store, right for"
                    + " one server. Passwords are never logged.",
                    List.of(REDIS_URI, REDIS_CLUSTER, REDIS_SENTINEL_MASTER, REDIS_SENTINEL_NODES, REDIS_SENTINEL_USER,
                            REDIS_SENTINEL_PASSWORD, REDIS_SENTINEL_DATABASE, REDIS_USER, REDIS_PASSWORD)),
            new Group("Redis: TLS", "The same trust store, client certificate and host name check apply to every"
                    + " connection: the server, each Cluster node, the sentinels and the master they name. The files are"
                    + " read at start-up.", List.of(REDIS_TLS, REDIS_TLS_TRUSTSTORE, REDIS_TLS_TRUSTSTORE_PASSWORD,
                    REDIS_TLS_KEYSTORE, REDIS_TLS_KEYSTORE_PASSWORD, REDIS_TLS_KEY, REDIS_TLS_CERTIFICATE,
                    REDIS_TLS_VERIFY_HOSTNAME)),
            new Group("Redis: calls, keys and failures", "How long a call to Redis may take, how many connections"
                    + " there are, how the keys are written, and what happens while Redis fails.", List.of(REDIS_TIMEOUT, REDIS_FAILURE_MODE,
                    REDIS_CIRCUIT_FAILURES, REDIS_CIRCUIT_OPEN_FOR, REDIS_POOL_SIZE, REDIS_AUTO_PIPELINING,
                    REDIS_KEY_PREFIX, REDIS_KEY_FORMAT, NAMESPACE)),
            new Group("This node's memory", "What a node keeps in its own memory: the in-memory store (the only"
                    + " store without Redis, and the `local` failure mode's) and the refusals it remembers.",
                    List.of(LOCAL_MAX_KEYS, DENY_CACHE)),
            new Group("Policies", "`tollgate.policies` declares the policies; each one's keys are then read by"
                    + " their exact names, `<name>` standing for the policy's name: a policy `free-tier` has its limits"
                    + " in `tollgate.policy.free-tier.limits`, or `TOLLGATE_POLICY_FREE_TIER_LIMITS`.",
                    List.of(POLICIES, POLICY_LIMITS, POLICY_KEY, POLICY_MATCH, POLICY_MODE, POLICY_COST,
                            POLICY_FAILURE_MODE, POLICY_ALGORITHM, POLICY_ZONE)),
            new Group("Concurrency limits", "How many requests of one client a policy lets run at once, across"
                    + " every node sharing the store.", List.of(POLICY_CONCURRENCY, POLICY_CONCURRENCY_LEASE)),
            new Group("Token leasing", "A node may take several tokens of a client's bucket in one Redis call and"
                    + " hand them out itself: one call per lease instead of one per request, for at most that many"
                    + " tokens per node beyond the bucket's bound.",
                    List.of(POLICY_PREFETCH, POLICY_PREFETCH_HOLD)),
            new Group("Refusals and response headers", "What a refused request is answered, and the rate limit"
                    + " headers on every answer.", List.of(POLICY_REFUSAL_STATUS, POLICY_REFUSAL_TYPE,
                    POLICY_REFUSAL_TITLE, POLICY_REFUSAL_HEADERS, HEADERS, RETRY_AFTER_JITTER)),
            new Group("Outbound calls", "For a policy that `TollgateClientFilter` applies to the calls an"
                    + " application makes to a remote.", List.of(POLICY_MAX_WAIT, POLICY_MAX_PAUSE)),
            new Group("Clients: addresses, proxies and the allow-list", "How a client's address is found behind"
                    + " proxies, how addresses are grouped, and which clients are never limited.",
                    List.of(TRUSTED_PROXIES, FORWARDED_HEADER, IPV4_PREFIX, IPV6_PREFIX, ALLOW_LIST)),
            new Group("Plans", "Plans give clients of one policy different limits: `tollgate.plans` declares them,"
                    + " `<plan>` standing for a plan's name, and a request's plan is found by role or by a header.",
                    List.of(PLANS, PLAN_SELECTOR, PLAN_DEFAULT, PLAN_ROLE, PLAN_VALUE, POLICY_PLAN_LIMITS)),
            new Group("Operations", "Metrics, reloads, JMX and logs.",
                    List.of(METRICS, RELOAD_INTERVAL, JMX, LOG_CLIENT_KEYS)),
            new Group("Health over HTTP", "A path the servlet filter answers with Tollgate's readiness and liveness, for"
                    + " applications without MicroProfile Health (Tomcat, a `web.xml`-only WAR).",
                    List.of(HEALTH_PATH, HEALTH_ALLOW)));

    private static Setting<Boolean> flag(String name, boolean defaultValue, String meaning) {
        return add(name, Boolean.toString(defaultValue), Parsers.BOOLEAN, Parsers::bool, meaning);
    }

    /** A setting whose default is a value, parsed by its own parser. */
    private static <T> Setting<T> add(String name, String defaultValue, String accepted, Function<String, T> parser,
                                      String meaning) {
        return add(name, defaultValue, null, accepted, parser, meaning);
    }

    /**
     * @param value the value when unset: for a default in parentheses; or an instance that means what the
     *              default's text means and must be that instance ({@code null}: parse the text)
     */
    private static <T> Setting<T> add(String name, String shownDefault, T value, String accepted,
                                      Function<String, T> parser, String meaning) {
        Setting<T> s = new Setting<>(name, shownDefault, value, accepted, parser, meaning);
        ALL_IN_ORDER.add(s);
        return s;
    }
}
