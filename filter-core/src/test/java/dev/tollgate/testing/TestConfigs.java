package dev.tollgate.testing;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A configuration from key/value pairs, for tests: {@code TestConfigs.of("tollgate.policy.default.limits",
 * "5/s")} instead of {@code TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test", map)), null)}.
 * One source named {@value #SOURCE}; a test about sources, lookups or how messages name them
 * spells the long form out.
 */
public final class TestConfigs {

    /** What messages name as where a value came from. */
    public static final String SOURCE = "test";

    private TestConfigs() {
    }

    /**
     * The configuration of {@code keysAndValues} ({@code "k1", "v1", "k2", "v2", ...}), with the
     * built-in key resolvers only.
     *
     * @throws ConfigException as {@link TollgateConfig#load} does
     */
    public static TollgateConfig of(String... keysAndValues) {
        return of(pairs(keysAndValues));
    }

    /** The configuration of {@code values}, with the built-in key resolvers only. */
    public static TollgateConfig of(Map<String, String> values) {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of(SOURCE, values)), null);
    }

    /**
     * The configuration of {@code keysAndValues}, with the {@code KeyResolverProvider}s the test
     * class path declares (e.g. {@link TenantKeyResolverProvider}) besides the built-in ones.
     */
    public static TollgateConfig withProviders(String... keysAndValues) {
        return withProviders(pairs(keysAndValues));
    }

    /** The configuration of {@code values}, with the test class path's {@code KeyResolverProvider}s. */
    public static TollgateConfig withProviders(Map<String, String> values) {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of(SOURCE, values)), TestConfigs.class.getClassLoader());
    }

    private static Map<String, String> pairs(String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values in pairs; " + keysAndValues.length + " strings given");
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (m.put(keysAndValues[i], keysAndValues[i + 1]) != null) {
                throw new IllegalArgumentException("key given twice: " + keysAndValues[i]);
            }
        }
        return m;
    }

    /** The Redis settings of {@code c}, whose store must be Redis. */
    public static dev.tollgate.config.RedisSettings redis(TollgateConfig c) {
        if (c.store() instanceof dev.tollgate.config.StoreSettings.OnRedis r) {
            return r.redis();
        }
        throw new AssertionError("not a Redis store: " + c.store());
    }
}
