package dev.tollgate.config;

import dev.tollgate.Algorithm;
import dev.tollgate.AllowList;
import dev.tollgate.ClientAddresses;
import dev.tollgate.Costs;
import dev.tollgate.Limit;
import dev.tollgate.Mode;
import dev.tollgate.Plans;
import dev.tollgate.Policy;
import dev.tollgate.RequestMatcher;
import dev.tollgate.internal.AddressRanges;
import dev.tollgate.internal.Durations;
import dev.tollgate.internal.KeyResolvers;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.RequestPatterns;
import dev.tollgate.spi.KeyResolver;
import dev.tollgate.spi.KeyResolverProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The validated configuration. {@link #load} reads every key, checks every value, and throws one
 * {@link ConfigException} listing every problem, so a bad value stops start-up with a message
 * that names the key, the value, where it came from and what is accepted.
 *
 * <p>Immutable and thread-safe.
 *
 * @param enabled          whether Tollgate limits at all
 * @param redis            the Redis to use, or {@code null} for the in-memory store
 * @param failureMode      what to do while Redis fails
 * @param keyPrefix        prefix of every storage key
 * @param policies         the policies, in declared order
 * @param headers          which headers responses carry
 * @param localMaxKeys     most buckets kept in memory
 * @param jaxrsGlobal      whether the JAX-RS adapter applies policies by {@code match} to resources
 *                         without {@code @RateLimited}
 * @param clientAddresses  how the client's address is found (trusted proxies, grouping)
 * @param allowList        clients never limited
 * @param plans            the plans, if any
 * @param retryAfterJitter the most added at random to {@code Retry-After}
 * @param metrics          where metrics go: {@code auto}, {@code none}, {@code opentelemetry}, {@code micrometer}, {@code microprofile}
 * @param reloadInterval   how often the configuration is read again; zero: never
 * @param jmx              whether the limiter registers a JMX bean
 * @param fingerprint      a digest of every value read, to tell whether a reload changed anything
 * @param denyCache        whether refusals from Redis are remembered until their Retry-After
 * @param compactKeys      whether storage keys are hashed to save Redis memory
 */
public record TollgateConfig(boolean enabled, RedisSettings redis, FailureMode failureMode, String keyPrefix,
                             List<Policy> policies, HeaderStyle headers, int localMaxKeys, boolean jaxrsGlobal,
                             ClientAddresses clientAddresses, AllowList allowList, Plans plans,
                             Duration retryAfterJitter, String metrics, Duration reloadInterval, boolean jmx,
                             String fingerprint, boolean denyCache, boolean compactKeys) {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:/-]{0,64}");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}");
    private static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);

    public TollgateConfig {
        policies = List.copyOf(policies);
    }

    /** This configuration with other Redis settings. */
    public TollgateConfig withRedis(RedisSettings other) {
        return new TollgateConfig(enabled, other, failureMode, keyPrefix, policies, headers, localMaxKeys, jaxrsGlobal,
                clientAddresses, allowList, plans, retryAfterJitter, metrics, reloadInterval, jmx, fingerprint, denyCache,
                compactKeys);
    }

    /** The policy of that name, if configured. */
    public Optional<Policy> policy(String name) {
        for (Policy p : policies) {
            if (p.name().equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Reads and validates everything.
     *
     * @param classLoader where to look for {@link KeyResolverProvider}s, or {@code null} for the built-in ones only
     * @throws ConfigException listing every problem found
     */
    public static TollgateConfig load(ConfigLookup lookup, ClassLoader classLoader) {
        Reader r = new Reader(lookup);
        boolean enabled = r.parse(ConfigKeys.ENABLED, true, "'true' or 'false'", TollgateConfig::bool);
        RedisSettings redis = r.redis();
        FailureMode failureMode = r.parse(ConfigKeys.REDIS_FAILURE_MODE, FailureMode.LOCAL, "'local', 'open' or 'closed'",
                v -> FailureMode.valueOf(v.toUpperCase(Locale.ROOT)));
        String prefix = r.parse(ConfigKeys.REDIS_KEY_PREFIX, "tollgate:",
                "up to 64 letters, digits and '_', '.', ':', '/', '-'", v -> {
                    if (!PREFIX.matcher(v).matches()) {
                        throw new IllegalArgumentException("it has characters outside the accepted set or is too long");
                    }
                    return v;
                });
        HeaderStyle headers = r.parse(ConfigKeys.HEADERS, HeaderStyle.DRAFT, "'draft', 'legacy', 'both' or 'none'",
                v -> HeaderStyle.valueOf(v.toUpperCase(Locale.ROOT)));
        int maxKeys = r.parse(ConfigKeys.LOCAL_MAX_KEYS, 100_000, "a whole number from 1000 to 100000000",
                v -> intIn(v, 1000, 100_000_000));
        boolean jaxrsGlobal = r.parse(ConfigKeys.JAXRS_GLOBAL, false, "'true' or 'false'", TollgateConfig::bool);
        ClientAddresses addresses = r.clientAddresses();
        AllowList allowList = r.parse(ConfigKeys.ALLOW_LIST, AllowList.NONE, AllowList.SYNTAX, AllowList::parse);
        Duration jitter = r.parse(ConfigKeys.RETRY_AFTER_JITTER, Duration.ZERO, "from 0s to 1h: " + Durations.SYNTAX,
                v -> durationIn(v, Duration.ZERO, Duration.ofHours(1)));
        Plans plans = r.plans(addresses);
        String metrics = r.parse(ConfigKeys.METRICS, "auto", "'auto', 'none', or some of 'opentelemetry', 'micrometer',"
                + " 'microprofile' separated by ','", v -> {
                    String low = v.toLowerCase(Locale.ROOT).replace(" ", "");
                    if (!low.matches("auto|none|(opentelemetry|micrometer|microprofile)(,(opentelemetry|micrometer|microprofile)){0,2}")) {
                        throw new IllegalArgumentException("it names no known metrics library");
                    }
                    return low;
                });
        Duration reloadInterval = r.parse(ConfigKeys.RELOAD_INTERVAL, Duration.ZERO, "0s (never) or from 1s to 1h: "
                + Durations.SYNTAX, v -> {
                    Duration d = Durations.parse(v);
                    return d.isZero() ? d : durationIn(v, Duration.ofSeconds(1), Duration.ofHours(1));
                });
        boolean jmx = r.parse(ConfigKeys.JMX, true, "'true' or 'false'", TollgateConfig::bool);
        boolean denyCache = r.parse(ConfigKeys.DENY_CACHE, true, "'true' or 'false'", TollgateConfig::bool);
        boolean compactKeys = r.parse(ConfigKeys.REDIS_KEY_FORMAT, false, "'readable' or 'compact'", v -> {
            switch (v.toLowerCase(Locale.ROOT)) {
                case "readable":
                    return false;
                case "compact":
                    return true;
                default:
                    throw new IllegalArgumentException("it is not a key format");
            }
        });

        Map<String, KeyResolverProvider> providers;
        try {
            providers = KeyResolvers.providers(classLoader);
        } catch (IllegalArgumentException e) {
            r.problems.add(Messages.BAD_VALUE + ": the key resolvers on the class path cannot be used: " + e.getMessage());
            providers = KeyResolvers.providers(null);
        }
        List<Policy> policies = r.policies(providers, plans);
        if (compactKeys) {
            Map<String, String> tags = new java.util.HashMap<>();
            for (Policy p : policies) {
                String key = dev.tollgate.internal.BucketKeys.compactKey("", p.name(), "", false);
                String other = tags.put(key.substring(key.length() - 2), p.name());
                if (other != null) {
                    r.problems.add(Messages.BAD_VALUE + ": policies '" + other + "' and '" + p.name() + "' hash to the same"
                            + " compact key tag; rename one, or set " + ConfigKeys.REDIS_KEY_FORMAT + "=readable");
                }
            }
        }
        if (!r.problems.isEmpty()) {
            throw new ConfigException(r.problems);
        }
        return new TollgateConfig(enabled, redis, failureMode, prefix, policies, headers, maxKeys, jaxrsGlobal,
                addresses, allowList, plans, jitter, metrics, reloadInterval, jmx, r.fingerprint(), denyCache, compactKeys);
    }

    static boolean bool(String v) {
        switch (v.toLowerCase(Locale.ROOT)) {
            case "true": case "yes": case "on":
                return true;
            case "false": case "no": case "off":
                return false;
            default:
                throw new IllegalArgumentException("it is not a boolean");
        }
    }

    static int intIn(String v, int min, int max) {
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("it is not a whole number");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("it is outside " + min + ".." + max);
        }
        return (int) n;
    }

    /** Names separated by commas, each checked, none twice. */
    static List<String> names(String text, Pattern valid, String what) {
        Set<String> out = new LinkedHashSet<>();
        for (String n : text.split(",")) {
            String name = n.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!valid.matcher(name).matches()) {
                throw new IllegalArgumentException("'" + name + "' is not a " + what + " name");
            }
            if (!out.add(name)) {
                throw new IllegalArgumentException("'" + name + "' is declared twice");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no " + what + " name");
        }
        return List.copyOf(out);
    }

    /** Reads keys and collects problems instead of stopping at the first. */
    private static final class Reader {
        final ConfigLookup lookup;
        final List<String> problems = new ArrayList<>();
        final java.util.TreeMap<String, String> seen = new java.util.TreeMap<>();

        Reader(ConfigLookup base) {
            this.lookup = new ConfigLookup(List.of(new ConfigSource() {
                @Override
                public String get(String key) {
                    Optional<ConfigValue> v = base.get(key);
                    v.ifPresent(x -> seen.put(key, x.value()));
                    return v.map(ConfigValue::value).orElse(null);
                }

                @Override
                public String describe(String key) {
                    return base.get(key).map(ConfigValue::source).orElse("default");
                }
            }));
        }

        /** A digest of every value read: equal digests, equal configurations. */
        String fingerprint() {
            try {
                java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
                seen.forEach((k, v) -> md.update((k + '\u0000' + v + '\n').getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                return java.util.HexFormat.of().formatHex(md.digest());
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        <T> T parse(String key, T defaultValue, String accepted, Function<String, T> parser) {
            Optional<ConfigValue> v = lookup.get(key);
            if (v.isEmpty()) {
                return defaultValue;
            }
            return parse(v.get(), defaultValue, accepted, parser);
        }

        <T> T parse(ConfigValue v, T fallback, String accepted, Function<String, T> parser) {
            try {
                return parser.apply(v.value());
            } catch (RuntimeException e) {
                problems.add(Messages.badValue(v, reason(e), accepted));
                return fallback;
            }
        }

        /** Records a problem with a value that parsed but does not fit with the rest. */
        void misfit(String key, String reason, String accepted) {
            lookup.get(key).ifPresentOrElse(
                    v -> problems.add(Messages.badValue(v, reason, accepted)),
                    () -> problems.add(Messages.BAD_VALUE + ": " + key + " (default): " + reason + ". Accepted: " + accepted));
        }

        RedisSettings redis() {
            Duration timeout = parse(ConfigKeys.REDIS_TIMEOUT, Duration.ofMillis(100),
                    "from 1ms to 60s: " + Durations.SYNTAX, v -> durationIn(v, Duration.ofMillis(1), MAX_TIMEOUT));
            int pool = parse(ConfigKeys.REDIS_POOL_SIZE, 16, "a whole number from 1 to 1024", v -> intIn(v, 1, 1024));
            int failures = parse(ConfigKeys.REDIS_CIRCUIT_FAILURES, 3, "a whole number from 1 to 1000", v -> intIn(v, 1, 1000));
            Duration openFor = parse(ConfigKeys.REDIS_CIRCUIT_OPEN_FOR, Duration.ofSeconds(1),
                    "from 10ms to 5min: " + Durations.SYNTAX, v -> durationIn(v, Duration.ofMillis(10), Duration.ofMinutes(5)));
            boolean tls = parse(ConfigKeys.REDIS_TLS, false, "'true' or 'false'", TollgateConfig::bool);
            boolean pipelining = parse(ConfigKeys.REDIS_AUTO_PIPELINING, true, "'true' or 'false'", TollgateConfig::bool);
            String user = parse(ConfigKeys.REDIS_USER, null, OPAQUE, TollgateConfig::opaque);
            String password = secret(ConfigKeys.REDIS_PASSWORD);
            Sentinel sentinelAuth = sentinelAuth();

            Optional<ConfigValue> uri = lookup.get(ConfigKeys.REDIS_URI);
            Optional<ConfigValue> cluster = lookup.get(ConfigKeys.REDIS_CLUSTER);
            Optional<ConfigValue> master = lookup.get(ConfigKeys.REDIS_SENTINEL_MASTER);
            Optional<ConfigValue> sentinels = lookup.get(ConfigKeys.REDIS_SENTINEL_NODES);
            int topologies = (uri.isPresent() ? 1 : 0) + (cluster.isPresent() ? 1 : 0)
                    + (master.isPresent() || sentinels.isPresent() ? 1 : 0);
            if (topologies > 1) {
                problems.add(Messages.BAD_VALUE + ": more than one of " + ConfigKeys.REDIS_URI + ", " + ConfigKeys.REDIS_CLUSTER
                        + " and " + ConfigKeys.REDIS_SENTINEL_MASTER + " is set. Accepted: exactly one Redis topology");
                return null;
            }
            if (master.isEmpty() && sentinels.isEmpty()) {
                sentinelOnly(ConfigKeys.REDIS_SENTINEL_USER, "unset");
                sentinelOnly(ConfigKeys.REDIS_SENTINEL_PASSWORD, "unset");
                sentinelOnly(ConfigKeys.REDIS_SENTINEL_DATABASE, "unset; a standalone server's database is the"
                        + " URI's path, e.g. redis://host:6379/2, and a Cluster has database 0 only");
            }
            if (uri.isPresent()) {
                ConfigValue shown = new ConfigValue(uri.get().key(), maskPassword(uri.get().value()), uri.get().source());
                RedisSettings s = parse(shown, null, "'redis://[user:password@]host[:port][/db]' or 'rediss://...' for TLS",
                        ignored -> redisUri(uri.get().value(), timeout, pool, failures, openFor));
                if (s == null) {
                    return null;
                }
                return new RedisSettings(s.topology(), s.nodes(), null, s.tls(), user != null ? user : s.user(),
                        password != null ? password : s.password(), s.database(), timeout, pool, failures, openFor, pipelining);
            }
            if (cluster.isPresent()) {
                List<String> nodes = parse(cluster.get(), null, NODES, TollgateConfig::nodes);
                return nodes == null ? null : new RedisSettings(RedisSettings.Topology.CLUSTER, nodes, null, tls, user,
                        password, 0, timeout, pool, failures, openFor, pipelining);
            }
            if (master.isPresent() || sentinels.isPresent()) {
                if (master.isEmpty()) {
                    problems.add(Messages.badValue(sentinels.get(), ConfigKeys.REDIS_SENTINEL_MASTER + " is not set, and the"
                            + " sentinels need the master's name", "sentinel nodes together with a master name"));
                    return null;
                }
                if (sentinels.isEmpty()) {
                    problems.add(Messages.badValue(master.get(), ConfigKeys.REDIS_SENTINEL_NODES + " is not set, and a master"
                            + " name needs the sentinels that know it", "a master name together with sentinel nodes"));
                    return null;
                }
                List<String> nodes = parse(sentinels.get(), null, NODES, TollgateConfig::nodes);
                String masterName = parse(master.get(), null, OPAQUE, TollgateConfig::opaque);
                return nodes == null || masterName == null || sentinelAuth == null ? null
                        : new RedisSettings(RedisSettings.Topology.SENTINEL, nodes, masterName, tls, user, password,
                                sentinelAuth.database(), timeout, pool, failures, openFor, pipelining, sentinelAuth.user(),
                                sentinelAuth.password());
            }
            return null;
        }

        /** What the sentinels themselves need, and the master's database; {@code null} after a problem. */
        private record Sentinel(String user, String password, int database) {
        }

        private Sentinel sentinelAuth() {
            int before = problems.size();
            String user = parse(ConfigKeys.REDIS_SENTINEL_USER, null, OPAQUE, TollgateConfig::opaque);
            String password = secret(ConfigKeys.REDIS_SENTINEL_PASSWORD);
            int database = parse(ConfigKeys.REDIS_SENTINEL_DATABASE, 0, "a whole number from 0 to 2147483647 (Redis"
                    + " has databases 0 to 15 unless its 'databases' setting says more)", v -> intIn(v, 0, Integer.MAX_VALUE));
            if (user != null && password == null && lookup.get(ConfigKeys.REDIS_SENTINEL_PASSWORD).isEmpty()) {
                misfit(ConfigKeys.REDIS_SENTINEL_USER, "a sentinel user needs " + ConfigKeys.REDIS_SENTINEL_PASSWORD
                        + ", which is not set", "a user together with " + ConfigKeys.REDIS_SENTINEL_PASSWORD);
            }
            return problems.size() > before ? null : new Sentinel(user, password, database);
        }

        /** A Sentinel key set without Sentinel: refused rather than silently ignored. */
        private void sentinelOnly(String key, String accepted) {
            lookup.get(key).ifPresent(v -> problems.add(Messages.badValue(secretKey(key) ? hidden(v) : v,
                    "it applies only to Sentinel (" + ConfigKeys.REDIS_SENTINEL_MASTER + " and "
                            + ConfigKeys.REDIS_SENTINEL_NODES + "), which is not configured", accepted)));
        }

        /** A password: checked like any opaque value, but shown as **** in every message. */
        private String secret(String key) {
            return lookup.get(key).map(v -> parse(hidden(v), null, OPAQUE, ignored -> opaque(v.value()))).orElse(null);
        }

        ClientAddresses clientAddresses() {
            AddressRanges trusted = parse(ConfigKeys.TRUSTED_PROXIES, AddressRanges.NONE, AddressRanges.SYNTAX,
                    TollgateConfig::someAddresses);
            ClientAddresses.Header header = parse(ConfigKeys.FORWARDED_HEADER, ClientAddresses.Header.X_FORWARDED_FOR,
                    "'x-forwarded-for' or 'forwarded'", v -> ClientAddresses.Header.valueOf(
                            v.toUpperCase(Locale.ROOT).replace('-', '_')));
            int v4 = parse(ConfigKeys.IPV4_PREFIX, 32, "a prefix length from 8 to 32", v -> intIn(v, 8, 32));
            int v6 = parse(ConfigKeys.IPV6_PREFIX, 64, "a prefix length from 16 to 128", v -> intIn(v, 16, 128));
            return new ClientAddresses(trusted, header, v4, v6);
        }

        Plans plans(ClientAddresses addresses) {
            Optional<ConfigValue> declared = lookup.get(ConfigKeys.PLANS);
            if (declared.isEmpty()) {
                return Plans.NONE;
            }
            List<String> names = parse(declared.get(), List.of(), "plan names separated by ','",
                    v -> TollgateConfig.names(v, Policy.NAME, "plan"));
            if (names.isEmpty()) {
                return Plans.NONE;
            }
            String selectorText = lookup.get(ConfigKeys.PLAN_SELECTOR).map(ConfigValue::value).orElse("role");
            Plans.Selector selector = Plans.Selector.ROLE;
            String header = null;
            String lower = selectorText.toLowerCase(Locale.ROOT);
            if (lower.startsWith("header:") && HEADER_NAME.matcher(selectorText.substring(7).trim()).matches()) {
                selector = Plans.Selector.HEADER;
                header = selectorText.substring(7).trim();
                if (addresses.trusted().isEmpty()) {
                    misfit(ConfigKeys.PLAN_SELECTOR, "a plan header is believed only from trusted proxies, and "
                            + ConfigKeys.TRUSTED_PROXIES + " is not set", "'role', or set " + ConfigKeys.TRUSTED_PROXIES);
                }
            } else if (!lower.equals("role")) {
                misfit(ConfigKeys.PLAN_SELECTOR, "'" + selectorText + "' is not a selector", "'role' or 'header:<Name>'");
            }
            Optional<ConfigValue> def = lookup.get(ConfigKeys.PLAN_DEFAULT);
            String defaultPlan = null;
            if (def.isEmpty()) {
                problems.add(Messages.missing(ConfigKeys.PLAN_DEFAULT, "one of " + names + ", the plan of requests that show none"));
            } else if (!names.contains(def.get().value())) {
                problems.add(Messages.badValue(def.get(), "it is not a declared plan", "one of " + names));
            } else {
                defaultPlan = def.get().value();
            }
            Map<String, String> markers = new LinkedHashMap<>();
            for (String plan : names) {
                String key = ConfigKeys.plan(plan, selector == Plans.Selector.ROLE ? ConfigKeys.PLAN_ROLE : ConfigKeys.PLAN_VALUE);
                String marker = parse(key, plan, "a role name or header value: up to 128 characters, no control characters",
                        TollgateConfig::marker);
                markers.put(plan, selector == Plans.Selector.ROLE ? marker : marker.toLowerCase(Locale.ROOT));
            }
            return new Plans(names, defaultPlan, selector, header, markers);
        }

        List<Policy> policies(Map<String, KeyResolverProvider> providers, Plans plans) {
            // A bad list reads no policy at all, rather than blaming keys the operator never meant.
            Optional<ConfigValue> names = lookup.get(ConfigKeys.POLICIES);
            List<String> declared = names.isEmpty() ? List.of("default") : parse(names.get(), List.of(),
                    "names of 1 to 64 letters, digits, '_', '.' or '-', separated by ','",
                    v -> TollgateConfig.names(v, Policy.NAME, "policy"));
            if (declared.isEmpty()) {
                return List.of();
            }
            List<Policy> out = new ArrayList<>();
            for (String name : declared) {
                Policy p = policy(name, providers, plans);
                if (p != null) {
                    out.add(p);
                }
            }
            return out;
        }

        private Policy policy(String name, Map<String, KeyResolverProvider> providers, Plans plans) {
            int before = problems.size();
            String limitsKey = ConfigKeys.policy(name, ConfigKeys.POLICY_LIMITS);
            Optional<ConfigValue> limitsValue = lookup.get(limitsKey);
            List<Limit> limits = null;
            if (limitsValue.isEmpty()) {
                problems.add(Messages.missing(limitsKey, "'10/s burst 20' or '100/min; 5000/day'"));
            } else {
                limits = parse(limitsValue.get(), null, Limit.SYNTAX, Limit::parse);
            }
            Map<String, List<Limit>> planLimits = new LinkedHashMap<>();
            for (String plan : plans.names()) {
                String key = ConfigKeys.plan(plan, ConfigKeys.policy(name, ConfigKeys.POLICY_PLAN_LIMITS));
                List<Limit> l = parse(key, null, Limit.SYNTAX, Limit::parse);
                if (l != null) {
                    planLimits.put(plan, l);
                }
            }
            String keyKey = ConfigKeys.policy(name, ConfigKeys.POLICY_KEY);
            String keyText = lookup.get(keyKey).map(ConfigValue::value).orElse("ip");
            KeyResolver key = parse(keyKey, KeyResolvers.parse("ip", providers), KeyResolvers.SYNTAX,
                    v -> KeyResolvers.parse(v, providers));
            RequestMatcher match = parse(ConfigKeys.policy(name, ConfigKeys.POLICY_MATCH), RequestMatcher.ALL,
                    RequestPatterns.SYNTAX, RequestPatterns::parse);
            Mode mode = parse(ConfigKeys.policy(name, ConfigKeys.POLICY_MODE), Mode.ENFORCE, "'enforce' or 'shadow'",
                    v -> Mode.valueOf(v.toUpperCase(Locale.ROOT)));
            String costKey = ConfigKeys.policy(name, ConfigKeys.POLICY_COST);
            Costs cost = parse(costKey, Costs.ONE, Costs.SYNTAX, Costs::parse);
            String algorithmKey = ConfigKeys.policy(name, ConfigKeys.POLICY_ALGORITHM);
            Algorithm algorithm = parse(algorithmKey, Algorithm.TOKEN_BUCKET, "'token-bucket' or 'sliding-log'",
                    v -> Algorithm.valueOf(v.toUpperCase(Locale.ROOT).replace('-', '_')));
            FailureMode failureMode = parse(ConfigKeys.policy(name, ConfigKeys.POLICY_FAILURE_MODE), null,
                    "'local', 'open' or 'closed'", v -> FailureMode.valueOf(v.toUpperCase(Locale.ROOT)));
            if (problems.size() > before) {
                return null;
            }
            Map<String, List<Limit>> all = new LinkedHashMap<>();
            all.put(limitsKey, limits);
            planLimits.forEach((plan, l) -> all.put(ConfigKeys.plan(plan, ConfigKeys.policy(name, ConfigKeys.POLICY_PLAN_LIMITS)), l));
            all.forEach((key2, set) -> {
                for (Limit l : set) {
                    try {
                        Policy.requireAlgorithmFits(l, algorithm);
                    } catch (IllegalArgumentException e) {
                        misfit(key2, e.getMessage() + " (" + algorithmKey + " is " + algorithm.name().toLowerCase(Locale.ROOT)
                                .replace('_', '-') + ")", Limit.SYNTAX);
                        return;
                    }
                    try {
                        Policy.requireCostFits(l, cost.max());
                    } catch (IllegalArgumentException e) {
                        misfit(costKey, e.getMessage() + " (" + key2 + ")", "a cost of at most " + l.capacity()
                                + ", or a larger burst");
                        return;
                    }
                }
            });
            if (problems.size() > before) {
                return null;
            }
            return new Policy(name, limits, planLimits, key, keyText, match, mode, cost, algorithm, failureMode);
        }

        private static String reason(RuntimeException e) {
            String m = e.getMessage();
            if (e instanceof IllegalArgumentException && m != null && m.startsWith("No enum constant")) {
                return "it is not one of the accepted words";
            }
            return m == null ? e.getClass().getSimpleName() : m;
        }
    }

    static final String NODES = "'host:port' entries separated by ',', e.g. '10.0.0.1:7000, 10.0.0.2:7001'";
    static final String OPAQUE = "up to 512 characters, no control characters";

    private static boolean secretKey(String key) {
        return key.equals(ConfigKeys.REDIS_PASSWORD) || key.equals(ConfigKeys.REDIS_SENTINEL_PASSWORD);
    }

    /** The value as messages show a password: never the password itself. */
    private static ConfigValue hidden(ConfigValue v) {
        return new ConfigValue(v.key(), "****", v.source());
    }

    /** A user name, password or master name: anything a person can type. */
    static String opaque(String v) {
        if (v.length() > 512) {
            throw new IllegalArgumentException("it is longer than 512 characters");
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException("it has a control character");
            }
        }
        return v;
    }

    static Duration durationIn(String v, Duration min, Duration max) {
        Duration d = Durations.parse(v);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException("it is outside " + Durations.format(min) + ".." + Durations.format(max));
        }
        return d;
    }

    /** {@code host:port} entries; hosts may be names, IPv4 or bracketed IPv6. */
    static List<String> nodes(String text) {
        List<String> out = new ArrayList<>();
        for (String raw : text.split(",")) {
            String n = raw.trim();
            if (n.isEmpty()) {
                continue;
            }
            int colon = n.lastIndexOf(':');
            if (colon <= 0 || colon == n.length() - 1) {
                throw new IllegalArgumentException("'" + n + "' is not host:port");
            }
            String host = n.substring(0, colon);
            if (host.startsWith("[") != host.endsWith("]") || !host.matches("[A-Za-z0-9.\\-\\[\\]:]+")) {
                throw new IllegalArgumentException("'" + host + "' is not a host name or address");
            }
            int port;
            try {
                port = Integer.parseInt(n.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + n + "': the port is not a number");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("'" + n + "': the port must be from 1 to 65535");
            }
            out.add(n);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no node given");
        }
        return List.copyOf(out);
    }

    static RedisSettings redisUri(String text, Duration timeout, int poolSize, int circuitFailures, Duration circuitOpenFor) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("it is not a URI");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalArgumentException("the scheme must be redis or rediss");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("it has no host");
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = uri.getPort() == -1 ? 6379 : uri.getPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("the port must be from 1 to 65535");
        }
        String user = null;
        String password = null;
        String info = uri.getUserInfo();
        if (info != null && !info.isEmpty()) {
            int colon = info.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("the user info must be 'user:password' or ':password'");
            }
            user = colon == 0 ? null : info.substring(0, colon);
            password = info.substring(colon + 1);
            if (password.isEmpty()) {
                password = null;
            }
        }
        int db = 0;
        String path = uri.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                db = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the path must be a database number, e.g. /0");
            }
            if (db < 0) {
                throw new IllegalArgumentException("the database number must not be negative");
            }
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("it must not have a query or fragment");
        }
        return new RedisSettings(RedisSettings.Topology.STANDALONE, List.of(RedisSettings.hostPort(host, port)), null,
                scheme.equals("rediss"), user, password, db, timeout, poolSize, circuitFailures, circuitOpenFor, true);
    }

    /**
     * The URI with anything that may be a password replaced by ****, for messages, however
     * malformed the URI: everything between the first ':' of the user info and the last '@'.
     */
    static String maskPassword(String uri) {
        int at = uri.lastIndexOf('@');
        if (at < 0) {
            return uri;
        }
        int scheme = uri.indexOf("://");
        int start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
        int colon = uri.indexOf(':', start);
        if (colon < 0 || colon > at) {
            return uri.substring(0, start) + "****" + uri.substring(at);
        }
        return uri.substring(0, colon + 1) + "****" + uri.substring(at);
    }

    /** Addresses for trusted proxies: at least one, and never everyone. */
    static AddressRanges someAddresses(String text) {
        AddressRanges r = AddressRanges.parse(text);
        if (r.isEmpty()) {
            throw new IllegalArgumentException("it lists no address");
        }
        if (r.coversAll()) {
            throw new IllegalArgumentException("a range of prefix length 0 covers every address");
        }
        return r;
    }

    /** A role or header value a plan is chosen by: something a role or a header can be. */
    static String marker(String v) {
        if (v.length() > 128) {
            throw new IllegalArgumentException("it is longer than 128 characters");
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException("it has a control character");
            }
        }
        return v;
    }
}
