package dev.tollgate.config;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.ConfigValue;

/**
 * MicroProfile Config as a source. This class is touched only after
 * {@link #tryCreate(ClassLoader)} has found the API, so a server without MicroProfile Config never
 * links against it.
 */
final class MicroProfileConfigSource implements ConfigSource {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.config");

    private final Config config;

    private MicroProfileConfigSource(Config config) {
        this.config = config;
    }

    /** The application's MicroProfile Config, or {@code null} when the server has none. */
    public static ConfigSource tryCreate(ClassLoader classLoader) {
        try {
            // Linked through this class's own loader, so that is the one that must see the API.
            Class.forName("org.eclipse.microprofile.config.ConfigProvider", false,
                    MicroProfileConfigSource.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        try {
            return new MicroProfileConfigSource(ConfigProvider.getConfig(classLoader));
        } catch (RuntimeException | LinkageError e) {
            // The API is there but no implementation (e.g. only the API jar on plain Tomcat).
            LOG.log(Level.FINE, "MicroProfile Config API present but unusable; using system properties and environment", e);
            return null;
        }
    }

    @Override
    public String get(String key) {
        return config.getOptionalValue(key, String.class).orElse(null);
    }

    @Override
    public java.util.Set<String> names() {
        java.util.Set<String> out = new java.util.HashSet<>();
        config.getPropertyNames().forEach(out::add);
        return out;
    }

    @Override
    public String describe(String key) {
        try {
            ConfigValue v = config.getConfigValue(key);
            if (v != null && v.getSourceName() != null) {
                return "MicroProfile Config source " + v.getSourceName();
            }
        } catch (RuntimeException e) {
            // fall through
        }
        return "MicroProfile Config";
    }

    @Override
    public String toString() {
        return "MicroProfile Config";
    }
}
