package dev.tollgate.config;

import dev.tollgate.AddressRanges;

/**
 * Where the servlet filter answers Tollgate's health over HTTP ({@code tollgate.health.path}), and
 * to which connection addresses ({@code tollgate.health.allow}). Read apart from
 * {@link TollgateConfig}: only the servlet filter serves it, and it does not change on a reload.
 *
 * <p>Immutable and thread-safe.
 *
 * @param path  the path inside the application, or {@code null} when health is not served
 * @param allow the connection addresses it answers
 */
public record HealthSettings(String path, AddressRanges allow) {

    /** Not served. */
    public static final HealthSettings OFF = new HealthSettings(null, Settings.HEALTH_ALLOW.defaultValue());

    /**
     * Reads both keys.
     *
     * @throws ConfigException naming the key, the value, where it came from and what is accepted
     */
    public static HealthSettings load(ConfigLookup lookup) {
        ConfigReader r = new ConfigReader(lookup);
        String path = r.get(Settings.HEALTH_PATH);
        AddressRanges allow = r.get(Settings.HEALTH_ALLOW);
        if (!r.problems.isEmpty()) {
            throw new ConfigException(r.problems);
        }
        return new HealthSettings(path, allow);
    }

    /** Whether a path is served. */
    public boolean enabled() {
        return path != null;
    }
}
