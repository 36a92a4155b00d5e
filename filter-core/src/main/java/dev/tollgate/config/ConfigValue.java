package dev.tollgate.config;

/**
 * A value found for a key, and where it was found.
 *
 * @param key    the dotted key
 * @param value  the value, trimmed, never empty
 * @param source where it came from, for messages
 */
public record ConfigValue(String key, String value, String source) {
}
