package dev.tollgate.config;

import dev.tollgate.AddressRanges;

/**
 * Where the servlet filter answers Tollgate's health over HTTP ({@code tollgate.health.path}), and
 * to which connection addresses ({@code tollgate.health.allow}). Read apart from
 * {@link TollgateConfig}: only the servlet filter serves it, and it does not change on a reload.
 * Made by {@link #load} only, so a key added later breaks no caller.
 *
 * <p>Immutable and thread-safe.
 */
public final class HealthSettings {

    /** Not served. */
    public static final HealthSettings OFF = new HealthSettings(null, Settings.HEALTH_ALLOW.defaultValue());

    private final String path;
    private final AddressRanges allow;

    private HealthSettings(String path, AddressRanges allow) {
        this.path = path;
        this.allow = allow;
    }

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

    /** The path inside the application, or {@code null} when health is not served. */
    public String path() {
        return path;
    }

    /** The connection addresses it answers. */
    public AddressRanges allow() {
        return allow;
    }

    /** Whether a path is served. */
    public boolean enabled() {
        return path != null;
    }

    @Override
    public String toString() {
        return "HealthSettings[path=" + path + ", allow=" + allow + "]";
    }
}
