package dev.tollgate.config;

import dev.tollgate.AllowList;
import dev.tollgate.ClientAddresses;
import dev.tollgate.Plans;
import dev.tollgate.Policy;
import dev.tollgate.config.text.ConfigMessages;
import dev.tollgate.config.text.KeyResolvers;
import dev.tollgate.spi.KeyResolverProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The validated configuration. {@link #load} reads every key, checks every value, and throws one
 * {@link ConfigException} listing every problem, so a bad value stops start-up with a message
 * that names the key, the value, where it came from and what is accepted.
 *
 * <p>Names in the sources that no key matches are reported by {@link #load} as warnings, or with
 * {@code tollgate.strict-config=true} as problems.
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
 * @param metrics          where metrics go: {@code auto}, {@code none}, {@code opentelemetry}, {@code micrometer}
 * @param reloadInterval   how often the configuration is read again; zero: never
 * @param jmx              whether the limiter registers a JMX bean
 * @param fingerprint      a digest of every value read, to tell whether a reload changed anything
 * @param denyCache        whether refusals from Redis are remembered until their Retry-After
 * @param compactKeys      whether storage keys are hashed to save Redis memory
 * @param clearClientKeys  whether log lines name clients by their whole key ({@code tollgate.log.client-keys=clear})
 *                         rather than by a fingerprint
 * @param warnings         the names found in the sources that Tollgate does not read ({@code TOLLGATE-004},
 *                         {@code TOLLGATE-005}), each logged once; with {@code tollgate.strict-config} they refuse the start instead
 * @param origins          for the values the engine checks when it opens (the TLS trust and key stores and their
 *                         passwords: can the files be read?), each value as a message shows it (a password as
 *                         {@code ****}) and where it came from, by key; empty for a configuration not read from sources
 * @param namespace        the namespace in every storage key ({@code tollgate.namespace}, else what the container says
 *                         the application is, else {@link #DEFAULT_NAMESPACE}) and where it came from: nodes of one
 *                         namespace share buckets, two namespaces never do
 */
public record TollgateConfig(boolean enabled, RedisSettings redis, FailureMode failureMode, String keyPrefix,
                             List<Policy> policies, HeaderStyle headers, int localMaxKeys, boolean jaxrsGlobal,
                             ClientAddresses clientAddresses, AllowList allowList, Plans plans,
                             Duration retryAfterJitter, String metrics, Duration reloadInterval, boolean jmx,
                             String fingerprint, boolean denyCache, boolean compactKeys, boolean clearClientKeys,
                             List<String> warnings, Map<String, ConfigValue> origins, ConfigValue namespace) {

    /**
     * The namespace when neither {@code tollgate.namespace} nor a container names the application
     * (a limiter built in code, a runtime without a servlet context): every such limiter on one
     * Redis shares it.
     */
    public static final ConfigValue DEFAULT_NAMESPACE = new ConfigValue(ConfigKeys.NAMESPACE, "default",
            "default: no tollgate.namespace and no application name from a container");

    private static final Logger LOG = Logger.getLogger("dev.tollgate.config");
    /** Warnings already logged, so a reload every 30 s does not repeat them; bounded, then every warning is logged. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    public TollgateConfig {
        policies = List.copyOf(policies);
        warnings = List.copyOf(warnings);
        origins = Map.copyOf(origins);
        namespace = namespace == null ? DEFAULT_NAMESPACE : namespace;
    }

    /** A configuration not read from sources: no {@link #origins()}. */
    public TollgateConfig(boolean enabled, RedisSettings redis, FailureMode failureMode, String keyPrefix,
                          List<Policy> policies, HeaderStyle headers, int localMaxKeys, boolean jaxrsGlobal,
                          ClientAddresses clientAddresses, AllowList allowList, Plans plans,
                          Duration retryAfterJitter, String metrics, Duration reloadInterval, boolean jmx,
                          String fingerprint, boolean denyCache, boolean compactKeys, boolean clearClientKeys,
                          List<String> warnings) {
        this(enabled, redis, failureMode, keyPrefix, policies, headers, localMaxKeys, jaxrsGlobal, clientAddresses,
                allowList, plans, retryAfterJitter, metrics, reloadInterval, jmx, fingerprint, denyCache, compactKeys,
                clearClientKeys, warnings, Map.of(), DEFAULT_NAMESPACE);
    }

    /**
     * This configuration with what only a start can change taken from {@code start}: the Redis
     * settings (connections are opened once) and {@code tollgate.local.max-keys} (the in-memory
     * store is sized once).
     */
    public TollgateConfig withStartOnly(TollgateConfig start) {
        return new TollgateConfig(enabled, start.redis, failureMode, keyPrefix, policies, headers, start.localMaxKeys,
                jaxrsGlobal, clientAddresses, allowList, plans, retryAfterJitter, metrics, reloadInterval, jmx, fingerprint,
                denyCache, compactKeys, clearClientKeys, warnings, start.origins, namespace);
    }

    /** This configuration with other Redis settings (and the {@link #origins()} of their TLS values only if those are the same). */
    public TollgateConfig withRedis(RedisSettings other) {
        return new TollgateConfig(enabled, other, failureMode, keyPrefix, policies, headers, localMaxKeys, jaxrsGlobal,
                clientAddresses, allowList, plans, retryAfterJitter, metrics, reloadInterval, jmx, fingerprint, denyCache,
                compactKeys, clearClientKeys, warnings, redis != null && other != null
                && redis.tlsOptions().equals(other.tlsOptions()) ? origins : Map.of(), namespace);
    }

    /** This configuration with its keys in another namespace ({@link #namespace()}); for limiters built in code and tests. */
    public TollgateConfig withNamespace(ConfigValue other) {
        return new TollgateConfig(enabled, redis, failureMode, keyPrefix, policies, headers, localMaxKeys, jaxrsGlobal,
                clientAddresses, allowList, plans, retryAfterJitter, metrics, reloadInterval, jmx, fingerprint, denyCache,
                compactKeys, clearClientKeys, warnings, origins, other);
    }

    /** {@link #withNamespace(ConfigValue)} with a namespace set in code. */
    public TollgateConfig withNamespace(String other) {
        return withNamespace(new ConfigValue(ConfigKeys.NAMESPACE, Parsers.opaque(other), "set in code"));
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
        ConfigReader r = new ConfigReader(lookup);
        PolicyReader p = new PolicyReader(r);
        boolean enabled = r.get(Settings.ENABLED);
        boolean strict = r.get(Settings.STRICT_CONFIG);
        RedisSettings redis = RedisReader.read(r);
        FailureMode failureMode = r.get(Settings.REDIS_FAILURE_MODE);
        String prefix = r.get(Settings.REDIS_KEY_PREFIX);
        HeaderStyle headers = r.get(Settings.HEADERS);
        int maxKeys = r.get(Settings.LOCAL_MAX_KEYS);
        boolean jaxrsGlobal = r.get(Settings.JAXRS_GLOBAL);
        ClientAddresses addresses = p.clientAddresses();
        AllowList allowList = r.get(Settings.ALLOW_LIST);
        Duration jitter = r.get(Settings.RETRY_AFTER_JITTER);
        Plans plans = p.plans(addresses);
        String metrics = r.get(Settings.METRICS);
        Duration reloadInterval = r.get(Settings.RELOAD_INTERVAL);
        boolean jmx = r.get(Settings.JMX);
        boolean denyCache = r.get(Settings.DENY_CACHE);
        boolean compactKeys = r.get(Settings.REDIS_KEY_FORMAT);
        boolean clearClientKeys = r.get(Settings.LOG_CLIENT_KEYS);
        ConfigValue namespace = r.value(Settings.NAMESPACE)
                .map(v -> new ConfigValue(v.key(), r.get(Settings.NAMESPACE, v.value()), v.source()))
                .orElse(DEFAULT_NAMESPACE);

        Map<String, KeyResolverProvider> providers;
        try {
            providers = KeyResolvers.providers(classLoader);
        } catch (IllegalArgumentException e) {
            r.problems.add(ConfigMessages.bad("the key resolvers on the class path cannot be used: " + e.getMessage()));
            providers = KeyResolvers.providers(null);
        }
        List<String> declared = p.policyNames();
        List<Policy> policies = p.policies(declared, providers, plans);
        // A refused list blames none of its keys: the operator sees the list's problem first.
        boolean plansRefused = r.value(Settings.PLANS).isPresent() && plans.names().isEmpty();
        List<String> warnings = UnknownKeys.find(lookup.names(), declared.isEmpty() ? null : declared,
                plansRefused ? null : plans.names(), strict);
        if (strict) {
            r.problems.addAll(warnings);
        }
        if (!r.problems.isEmpty()) {
            // A mistyped name is often why a value is missing: its hint comes with the problems.
            throw new ConfigException(r.problems, strict ? List.of() : warnings);
        }
        for (String w : warnings) {
            if (WARNED.size() >= 10_000 || WARNED.add(w)) {
                LOG.warning(w);
            }
        }
        return new TollgateConfig(enabled, redis, failureMode, prefix, policies, headers, maxKeys, jaxrsGlobal,
                addresses, allowList, plans, jitter, metrics, reloadInterval, jmx, r.fingerprint(), denyCache, compactKeys,
                clearClientKeys, warnings, redis == null ? Map.of() : RedisReader.tlsOrigins(r), namespace);
    }
}
