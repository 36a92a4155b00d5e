package dev.tollgate.config;

import dev.tollgate.Limit;
import dev.tollgate.Mode;
import dev.tollgate.Policy;
import dev.tollgate.RequestMatcher;
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
 * @param enabled      whether Tollgate limits at all
 * @param redis        the Redis to use, or {@code null} for the in-memory store
 * @param failureMode  what to do while Redis fails
 * @param keyPrefix    prefix of every storage key
 * @param policies     the policies, in declared order
 * @param headers      which headers responses carry
 * @param localMaxKeys most buckets kept in memory
 * @param jaxrsGlobal  whether the JAX-RS adapter applies policies by {@code match} to resources
 *                     without {@code @RateLimited}
 */
public record TollgateConfig(boolean enabled, RedisSettings redis, FailureMode failureMode, String keyPrefix,
                             List<Policy> policies, HeaderStyle headers, int localMaxKeys, boolean jaxrsGlobal) {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:/-]{0,64}");
    private static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);

    public TollgateConfig {
        policies = List.copyOf(policies);
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

        Map<String, KeyResolverProvider> providers;
        try {
            providers = KeyResolvers.providers(classLoader);
        } catch (IllegalArgumentException e) {
            r.problems.add(Messages.BAD_VALUE + ": the key resolvers on the class path cannot be used: " + e.getMessage());
            providers = KeyResolvers.providers(null);
        }
        List<Policy> policies = r.policies(providers);
        if (!r.problems.isEmpty()) {
            throw new ConfigException(r.problems);
        }
        return new TollgateConfig(enabled, redis, failureMode, prefix, policies, headers, maxKeys, jaxrsGlobal);
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

    /** Reads keys and collects problems instead of stopping at the first. */
    private static final class Reader {
        final ConfigLookup lookup;
        final List<String> problems = new ArrayList<>();

        Reader(ConfigLookup lookup) {
            this.lookup = lookup;
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

        RedisSettings redis() {
            Optional<ConfigValue> uri = lookup.get(ConfigKeys.REDIS_URI);
            Duration timeout = parse(ConfigKeys.REDIS_TIMEOUT, Duration.ofMillis(100),
                    "from 1ms to 60s: " + Durations.SYNTAX, v -> {
                        Duration d = Durations.parse(v);
                        if (d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(MAX_TIMEOUT) > 0) {
                            throw new IllegalArgumentException("it is outside 1ms..60s");
                        }
                        return d;
                    });
            int pool = parse(ConfigKeys.REDIS_POOL_SIZE, 16, "a whole number from 1 to 1024", v -> intIn(v, 1, 1024));
            if (uri.isEmpty()) {
                return null;
            }
            ConfigValue shown = new ConfigValue(uri.get().key(), maskPassword(uri.get().value()), uri.get().source());
            return parse(shown, null, "'redis://[user:password@]host[:port][/db]' or 'rediss://...' for TLS",
                    ignored -> redisUri(uri.get().value(), timeout, pool));
        }

        List<Policy> policies(Map<String, KeyResolverProvider> providers) {
            Optional<ConfigValue> names = lookup.get(ConfigKeys.POLICIES);
            Set<String> declared = new LinkedHashSet<>();
            if (names.isEmpty()) {
                declared.add("default");
            } else {
                for (String n : names.get().value().split(",")) {
                    String name = n.trim();
                    if (name.isEmpty()) {
                        continue;
                    }
                    if (!Policy.NAME.matcher(name).matches()) {
                        problems.add(Messages.badValue(names.get(), "'" + name + "' is not a policy name",
                                "names of 1 to 64 letters, digits, '_', '.' or '-', separated by ','"));
                    } else if (!declared.add(name)) {
                        problems.add(Messages.badValue(names.get(), "'" + name + "' is declared twice", "distinct names"));
                    }
                }
                if (declared.isEmpty()) {
                    problems.add(Messages.badValue(names.get(), "no policy name", "names separated by ','"));
                }
            }
            List<Policy> out = new ArrayList<>();
            for (String name : declared) {
                Policy p = policy(name, providers);
                if (p != null) {
                    out.add(p);
                }
            }
            return out;
        }

        private Policy policy(String name, Map<String, KeyResolverProvider> providers) {
            int before = problems.size();
            String limitsKey = ConfigKeys.policy(name, ConfigKeys.POLICY_LIMITS);
            Optional<ConfigValue> limitsValue = lookup.get(limitsKey);
            List<Limit> limits = null;
            if (limitsValue.isEmpty()) {
                problems.add(Messages.missing(limitsKey, "'10/s burst 20' or '100/min; 5000/day'"));
            } else {
                limits = parse(limitsValue.get(), null, Limit.SYNTAX, Limit::parse);
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
            long cost = parse(costKey, 1, "a whole number from 1 to the smallest burst of the policy",
                    v -> intIn(v, 1, Integer.MAX_VALUE));
            if (problems.size() > before) {
                return null;
            }
            for (Limit l : limits) {
                if (cost > l.capacity()) {
                    problems.add(Messages.badValue(lookup.get(costKey).orElseThrow(),
                            "a request costing " + cost + " tokens could never pass the limit '" + l + "' of "
                                    + limitsKey + ", whose burst is " + l.capacity(),
                            "a cost of at most " + l.capacity() + ", or a larger burst"));
                    return null;
                }
            }
            return new Policy(name, limits, key, keyText, match, mode, cost);
        }

        private static String reason(RuntimeException e) {
            String m = e.getMessage();
            if (e instanceof IllegalArgumentException && m != null && m.startsWith("No enum constant")) {
                return "it is not one of the accepted words";
            }
            return m == null ? e.getClass().getSimpleName() : m;
        }
    }

    static RedisSettings redisUri(String text, Duration timeout, int poolSize) {
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
        return new RedisSettings(host, port, scheme.equals("rediss"), user, password, db, timeout, poolSize);
    }

    /** The URI with any password replaced by ****, for messages. */
    static String maskPassword(String uri) {
        int at = uri.lastIndexOf('@');
        int scheme = uri.indexOf("://");
        if (at < 0 || scheme < 0 || at < scheme) {
            return uri;
        }
        String info = uri.substring(scheme + 3, at);
        int colon = info.indexOf(':');
        if (colon < 0) {
            return uri.substring(0, scheme + 3) + "****" + uri.substring(at);
        }
        return uri.substring(0, scheme + 3) + info.substring(0, colon) + ":****" + uri.substring(at);
    }
}
