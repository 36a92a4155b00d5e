package dev.tollgate.config;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
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

    /** What containers said each application is, by its class loader (weakly: an undeployed one goes). */
    private static final Map<ClassLoader, ConfigSource> APPLICATIONS = new WeakHashMap<>();

    /**
     * The lowest source of an application's configuration: {@code tollgate.namespace} as the
     * container names the application, so that two applications on one Redis keep their buckets
     * apart unless an operator gives them one namespace. The name is the context path; at the root
     * path ({@code ""}), where every application of a server of its own would meet, the display
     * name when there is one, else {@code /}. Nodes of one application deploy it at one path
     * under one name, so they share. Control characters become {@code '?'} and the name is cut
     * at 256 characters (the key holds it encoded, or hashed when long).
     *
     * <p>Remembered for {@code application} (the application's class loader), where
     * {@link #application(ClassLoader)} finds it: the CDI interceptor's own limiter and the
     * filters of one application so get one namespace. A later call for the same loader replaces it.
     *
     * @param contextPath the servlet context's path ({@code ""} at the root)
     * @param displayName its {@code <display-name>}, or {@code null}
     */
    public static ConfigSource application(ClassLoader application, String contextPath, String displayName) {
        String path = contextPath == null ? "" : contextPath;
        boolean named = path.isEmpty() && displayName != null && !displayName.isBlank();
        String name = clean(path.isEmpty() ? (named ? displayName.trim() : "/") : path);
        String where = path.isEmpty() ? (named ? "the display name of the application at the root path"
                : "the root context path (the application declares no display name)") : "the application's context path";
        ConfigSource source = of(where, key -> Settings.NAMESPACE.name().equals(key) ? name : null);
        if (application != null) {
            synchronized (APPLICATIONS) {
                APPLICATIONS.put(application, source);
            }
        }
        return source;
    }

    /**
     * The source a container declared for this class loader or its nearest ancestor
     * ({@link #application(ClassLoader, String, String)}), looked up at each read: it may be
     * declared after this source is made (a servlet container starts the CDI extension and the
     * filters in either order). Sets nothing while none is declared.
     */
    public static ConfigSource application(ClassLoader application) {
        return new ConfigSource() {
            @Override
            public String get(String key) {
                ConfigSource s = declared(application);
                return s == null ? null : s.get(key);
            }

            @Override
            public String describe(String key) {
                ConfigSource s = declared(application);
                return s == null ? "the application's name (none declared)" : s.describe(key);
            }

            @Override
            public String toString() {
                return "the application's name";
            }
        };
    }

    private static ConfigSource declared(ClassLoader loader) {
        synchronized (APPLICATIONS) {
            for (ClassLoader l = loader; l != null; l = l.getParent()) {
                ConfigSource s = APPLICATIONS.get(l);
                if (s != null) {
                    return s;
                }
            }
        }
        return null;
    }

    private static String clean(String name) {
        StringBuilder sb = new StringBuilder(Math.min(name.length(), 256));
        for (int i = 0; i < name.length() && sb.length() < 256; i++) {
            char c = name.charAt(i);
            sb.append(Character.isISOControl(c) ? '?' : c);
        }
        return sb.toString();
    }

    /** A source over a map. */
    public static ConfigSource of(String description, Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return of(description, copy::get, copy::keySet);
    }
}
