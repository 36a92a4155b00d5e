package dev.tollgate.config;

import java.util.List;
import java.util.Optional;

/**
 * Sources in order of precedence: the first that sets a key wins. An empty or blank value counts
 * as not set, as in MicroProfile Config.
 *
 * <p>Immutable and thread-safe when its sources are.
 */
public final class ConfigLookup {

    private final List<ConfigSource> sources;

    public ConfigLookup(List<ConfigSource> sources) {
        this.sources = List.copyOf(sources);
    }

    public static ConfigLookup of(ConfigSource... sources) {
        return new ConfigLookup(List.of(sources));
    }

    public List<ConfigSource> sources() {
        return sources;
    }

    /** The value of {@code key} from the first source that sets it. */
    public Optional<ConfigValue> get(String key) {
        for (ConfigSource source : sources) {
            String value = source.get(key);
            if (value != null && !value.isBlank()) {
                return Optional.of(new ConfigValue(key, value.trim(), source.describe(key)));
            }
        }
        return Optional.empty();
    }
}
