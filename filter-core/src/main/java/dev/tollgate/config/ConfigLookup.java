package dev.tollgate.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

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

    /**
     * Every name the sources list, each with where its value comes from (the first source that
     * lists it), in name order. A source that fails to list its names lists none.
     */
    public Map<String, String> names() {
        Map<String, String> out = new TreeMap<>();
        for (ConfigSource source : sources) {
            Set<String> names;
            try {
                names = source.names();
            } catch (RuntimeException e) {
                continue; // the names only serve a warning; a source that cannot list them is read as before
            }
            for (String name : names) {
                if (!out.containsKey(name)) {
                    out.put(name, source.describe(name));
                }
            }
        }
        return out;
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
