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
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The validated configuration, grouped by job: whether Tollgate limits at all, where buckets are
 * kept ({@link StoreSettings}: in memory or on Redis), who the client is ({@link IdentitySettings}),
 * the policies, what the answers say ({@link HttpSettings}) and how the limiter runs
 * ({@link RuntimeSettings}). {@link #load} reads every key, checks every value, and throws one
 * {@link ConfigException} listing every problem, so a bad value stops start-up with a message
 * that names the key, the value, where it came from and what is accepted; {@link #builder()}
 * builds one in code. A key added later is a builder method, never a broken constructor.
 *
 * <p>Names in the sources that no key matches are reported by {@link #load} as warnings, or with
 * {@code tollgate.strict-config=true} as problems.
 *
 * <p>Immutable and thread-safe.
 */
public final class TollgateConfig {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.config");
    /** Warnings already logged, so a reload every 30 s does not repeat them; bounded, then every warning is logged. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    /** Configurations built in code, each its own fingerprint. */
    private static final AtomicLong BUILT = new AtomicLong();

    private final boolean enabled;
    private final StoreSettings store;
    private final IdentitySettings identity;
    private final List<Policy> policies;
    private final HttpSettings http;
    private final RuntimeSettings runtime;
    private final String fingerprint;
    private final List<String> warnings;
    private final Map<String, ConfigValue> origins;
    private final ConfigValue namespace;

    /**
     * The namespace when neither {@code tollgate.namespace} nor a container names the application
     * (a limiter built in code, a runtime without a servlet context): every such limiter on one
     * Redis shares it.
     */
    public static final ConfigValue DEFAULT_NAMESPACE = new ConfigValue(Settings.NAMESPACE.name(), "default",
            "default: no tollgate.namespace and no application name from a container");

    private TollgateConfig(Builder b) {
        this.enabled = b.enabled;
        this.store = Objects.requireNonNull(b.store, "store");
        this.identity = Objects.requireNonNull(b.identity, "identity");
        this.policies = List.copyOf(b.policies);
        this.http = Objects.requireNonNull(b.http, "http");
        this.runtime = Objects.requireNonNull(b.runtime, "runtime");
        this.fingerprint = b.fingerprint != null ? b.fingerprint : "built:" + BUILT.incrementAndGet();
        this.warnings = List.copyOf(b.warnings);
        this.origins = Map.copyOf(b.origins);
        this.namespace = Objects.requireNonNull(b.namespace, "namespace");
    }

    /** A configuration in code: enabled, in memory, no policy, every value its key's default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration, to change some of it. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.store = store;
        b.identity = identity;
        b.policies = policies;
        b.http = http;
        b.runtime = runtime;
        b.warnings = warnings;
        b.origins = origins;
        b.namespace = namespace;
        return b;
    }

    /**
     * The namespace in every storage key ({@code tollgate.namespace}, else what the container says
     * the application is, else {@link #DEFAULT_NAMESPACE}) and where it came from: nodes of one
     * namespace share buckets, two namespaces never do.
     */
    public ConfigValue namespace() {
        return namespace;
    }

    /** This configuration with its keys in another namespace; for limiters built in code and tests. */
    public TollgateConfig withNamespace(ConfigValue other) {
        Builder b = toBuilder();
        b.namespace = Objects.requireNonNull(other, "namespace");
        b.fingerprint = fingerprint;
        return b.build();
    }

    /** {@link #withNamespace(ConfigValue)} with a namespace set in code. */
    public TollgateConfig withNamespace(String other) {
        return withNamespace(new ConfigValue(Settings.NAMESPACE.name(), Parsers.opaque(other), "set in code"));
    }

    /** Whether Tollgate limits at all ({@code tollgate.enabled}). */
    public boolean enabled() {
        return enabled;
    }

    /** Where buckets are kept. */
    public StoreSettings store() {
        return store;
    }

    /** Who the client is. */
    public IdentitySettings identity() {
        return identity;
    }

    /** The policies, in declared order. */
    public List<Policy> policies() {
        return policies;
    }

    /** What the answers say. */
    public HttpSettings http() {
        return http;
    }

    /** How the limiter runs. */
    public RuntimeSettings runtime() {
        return runtime;
    }

    /** A digest of every value read, to tell whether a reload changed anything; unique for a built configuration. */
    public String fingerprint() {
        return fingerprint;
    }

    /**
     * The names found in the sources that Tollgate does not read ({@code TOLLGATE-004},
     * {@code TOLLGATE-005}), each logged once; with {@code tollgate.strict-config} they refuse the start instead.
     */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * For the values the engine checks when it opens (the TLS trust and key stores and their
     * passwords: can the files be read?), each value as a message shows it (a password as
     * {@code ****}) and where it came from, by key; empty for a configuration not read from sources.
     */
    public Map<String, ConfigValue> origins() {
        return origins;
    }

    /**
     * This configuration with what only a start can change taken from {@code start}: the store's
     * kind and Redis settings (connections are opened once) and {@code tollgate.local.max-keys}
     * (the in-memory store is sized once).
     */
    public TollgateConfig withStartOnly(TollgateConfig start) {
        StoreSettings kept = start.store.withKeys(store.keyPrefix(), store.compactKeys())
                .withFailureMode(store.failureMode()).withDenyCache(store.denyCache());
        Builder b = toBuilder().store(kept);
        b.fingerprint = fingerprint;
        b.origins = start.origins;
        return b.build();
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

    @Override
    public String toString() {
        return "TollgateConfig[enabled=" + enabled + ", store=" + store + ", policies=" + policies.size() + ", " + http
                + ", " + runtime + "]";
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
        // served by the servlet filter (HealthSettings); read here too, so a bad value stops every start
        r.get(Settings.HEALTH_PATH);
        r.get(Settings.HEALTH_ALLOW);

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
        StoreSettings store = (redis == null ? StoreSettings.inMemory() : StoreSettings.redis(redis))
                .withKeys(prefix, compactKeys).withLocalMaxKeys(maxKeys).withFailureMode(failureMode).withDenyCache(denyCache);
        Builder b = builder().enabled(enabled).store(store)
                .identity(IdentitySettings.builder().clientAddresses(addresses).allowList(allowList).plans(plans).build())
                .policies(policies)
                .http(HttpSettings.builder().headers(headers).retryAfterJitter(jitter).jaxrsGlobal(jaxrsGlobal).build())
                .runtime(RuntimeSettings.builder().metrics(metrics).reloadInterval(reloadInterval).jmx(jmx)
                        .clearClientKeys(clearClientKeys).build());
        b.namespace = namespace;
        b.fingerprint = r.fingerprint();
        b.warnings = warnings;
        b.origins = redis == null ? Map.of() : RedisReader.tlsOrigins(r);
        return b.build();
    }

    /** Builds a {@link TollgateConfig} in code; every value starts at its key's default. Not thread-safe. */
    public static final class Builder {
        private boolean enabled = Settings.ENABLED.defaultValue();
        private StoreSettings store = StoreSettings.inMemory();
        private IdentitySettings identity = IdentitySettings.DEFAULTS;
        private List<Policy> policies = List.of();
        private HttpSettings http = HttpSettings.DEFAULTS;
        private RuntimeSettings runtime = RuntimeSettings.DEFAULTS;
        private String fingerprint;
        private List<String> warnings = List.of();
        private Map<String, ConfigValue> origins = Map.of();
        private ConfigValue namespace = DEFAULT_NAMESPACE;

        private Builder() {
        }

        /** The namespace in every storage key, set in code (see {@link TollgateConfig#namespace()}). */
        public Builder namespace(String name) {
            this.namespace = new ConfigValue(Settings.NAMESPACE.name(), Parsers.opaque(name), "set in code");
            return this;
        }

        public Builder enabled(boolean on) {
            this.enabled = on;
            return this;
        }

        public Builder store(StoreSettings where) {
            this.store = where;
            return this;
        }

        /** Buckets on this Redis, every other store value as it was. */
        public Builder redis(RedisSettings redis) {
            this.store = store instanceof StoreSettings.OnRedis r ? r.withRedis(redis)
                    : StoreSettings.redis(redis).withKeys(store.keyPrefix(), store.compactKeys())
                            .withLocalMaxKeys(store.localMaxKeys()).withFailureMode(store.failureMode())
                            .withDenyCache(store.denyCache());
            return this;
        }

        public Builder identity(IdentitySettings who) {
            this.identity = who;
            return this;
        }

        public Builder policies(List<Policy> all) {
            this.policies = List.copyOf(all);
            return this;
        }

        /** The policies, in order. */
        public Builder policies(Policy... all) {
            return policies(List.of(all));
        }

        public Builder http(HttpSettings answers) {
            this.http = answers;
            return this;
        }

        public Builder runtime(RuntimeSettings how) {
            this.runtime = how;
            return this;
        }

        public TollgateConfig build() {
            return new TollgateConfig(this);
        }
    }
}
