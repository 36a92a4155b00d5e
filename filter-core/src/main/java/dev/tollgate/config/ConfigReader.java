package dev.tollgate.config;

import dev.tollgate.config.text.ConfigMessages;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads settings and collects problems instead of stopping at the first; remembers every value
 * read, for the fingerprint. One reader per load, used by one thread: not thread-safe.
 */
final class ConfigReader {

    final ConfigLookup lookup;
    final List<String> problems = new ArrayList<>();
    private final TreeMap<String, String> seen = new TreeMap<>();

    ConfigReader(ConfigLookup base) {
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
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            seen.forEach((k, v) -> md.update((k + '\u0000' + v + '\n').getBytes(StandardCharsets.UTF_8)));
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    Optional<ConfigValue> value(Setting<?> setting) {
        return lookup.get(setting.name());
    }

    /** The setting's value, or its default when unset or refused (a refusal is recorded). */
    <T> T get(Setting<T> setting) {
        return get(setting, setting.defaultValue());
    }

    /** The setting's value, its default when unset, or {@code fallback} when refused. */
    <T> T get(Setting<T> setting, T fallback) {
        Optional<ConfigValue> v = value(setting);
        return v.isEmpty() ? setting.defaultValue() : parse(v.get(), setting, fallback);
    }

    /** A value found for {@code setting}, parsed; {@code fallback} when refused (recorded). */
    <T> T parse(ConfigValue v, Setting<T> setting, T fallback) {
        try {
            return setting.parse(v.value());
        } catch (RuntimeException e) {
            problems.add(ConfigMessages.badValue(v, reason(e), setting.accepted()));
            return fallback;
        }
    }

    /** A password: checked like any value, but shown as **** in every message; {@code null} when unset or refused. */
    String secret(Setting<String> setting) {
        return value(setting).map(v -> {
            try {
                return setting.parse(v.value());
            } catch (RuntimeException e) {
                problems.add(ConfigMessages.badValue(hidden(v), reason(e), setting.accepted()));
                return null;
            }
        }).orElse(null);
    }

    /** Records a problem with a value that parsed but does not fit with the rest. */
    void misfit(String key, String reason, String accepted) {
        lookup.get(key).ifPresentOrElse(
                v -> problems.add(ConfigMessages.badValue(v, reason, accepted)),
                () -> problems.add(ConfigMessages.badDefault(key, reason, accepted)));
    }

    /** The value as messages show a password: never the password itself. */
    static ConfigValue hidden(ConfigValue v) {
        return new ConfigValue(v.key(), "****", v.source());
    }

    private static String reason(RuntimeException e) {
        String m = e.getMessage();
        if (e instanceof IllegalArgumentException && m != null && m.startsWith("No enum constant")) {
            return "it is not one of the accepted words";
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }
}
