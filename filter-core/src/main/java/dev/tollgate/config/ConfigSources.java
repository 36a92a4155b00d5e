package dev.tollgate.config;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/** The configuration sources Tollgate knows. */
public final class ConfigSources {

    private ConfigSources() {
    }

    /**
     * The server's own configuration: MicroProfile Config when the server has an implementation
     * (WildFly, Payara: system properties, environment, server config), else {@link #system()}.
     */
    public static ConfigSource server(ClassLoader classLoader) {
        ConfigSource mp;
        try {
            mp = MicroProfileConfigSource.tryCreate(classLoader);
        } catch (LinkageError e) {
            mp = null; // the API is not visible to Tollgate's class loader
        }
        return mp != null ? mp : system();
    }

    /**
     * System properties, then environment variables, with the MicroProfile Config rule for
     * names: {@code tollgate.redis.uri} is read as that property, else as the variable
     * {@code tollgate_redis_uri}, else {@code TOLLGATE_REDIS_URI}.
     */
    public static ConfigSource system() {
        return system(System.getenv());
    }

    /** {@link #system()} over a given environment, for tests. */
    public static ConfigSource system(Map<String, String> environment) {
        return new ConfigSource() {
            @Override
            public String get(String key) {
                String v = System.getProperty(key);
                if (v != null) {
                    return v;
                }
                String name = envNameFound(key);
                return name == null ? null : environment.get(name);
            }

            @Override
            public String describe(String key) {
                if (System.getProperty(key) != null) {
                    return "system property " + key;
                }
                String name = envNameFound(key);
                return "environment variable " + (name == null ? Settings.environmentName(key) : name);
            }

            private String envNameFound(String key) {
                if (environment.containsKey(key)) {
                    return key;
                }
                String underscored = Settings.environmentName(key).toLowerCase(java.util.Locale.ROOT);
                if (environment.containsKey(underscored)) {
                    return underscored;
                }
                String upper = Settings.environmentName(key);
                return environment.containsKey(upper) ? upper : null;
            }

            @Override
            public Set<String> names() {
                Set<String> out = new HashSet<>(System.getProperties().stringPropertyNames());
                out.addAll(environment.keySet());
                return out;
            }

            @Override
            public String toString() {
                return "system properties and environment";
            }
        };
    }

    /** A source over a function, e.g. a filter's {@code getInitParameter}; it lists no names. */
    public static ConfigSource of(String description, UnaryOperator<String> values) {
        return of(description, values, Set::of);
    }

    /**
     * A source over a function and the names it holds, e.g. a filter's {@code getInitParameter}
     * and {@code getInitParameterNames}.
     */
    public static ConfigSource of(String description, UnaryOperator<String> values, Supplier<? extends Collection<String>> names) {
        return new ConfigSource() {
            @Override
            public Set<String> names() {
                return Set.copyOf(names.get());
            }

            @Override
            public String get(String key) {
                return values.apply(key);
            }

            @Override
            public String describe(String key) {
                return description;
            }

            @Override
            public String toString() {
                return description;
            }
        };
    }

    /** A source over a map. */
    public static ConfigSource of(String description, Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return of(description, copy::get, copy::keySet);
    }
}
