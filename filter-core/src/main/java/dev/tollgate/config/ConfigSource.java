package dev.tollgate.config;

/**
 * One place configuration values come from: MicroProfile Config, system properties and the
 * environment, a filter's init-params, a web application's context-params, a map in a test.
 *
 * <p>Implementations must be thread-safe.
 */
public interface ConfigSource {

    /**
     * @param key a dotted key such as {@code tollgate.redis.uri}
     * @return the value, or {@code null} when this source does not set the key
     */
    String get(String key);

    /**
     * Where {@code key}'s value comes from, for messages: e.g.
     * {@code environment variable TOLLGATE_REDIS_URI} or {@code init-param of filter 'tollgate'}.
     */
    String describe(String key);

    /**
     * The names this source holds, as far as it can list them, so that a name no key matches (a
     * typo) can be reported. A source that cannot list its names (a function) returns none.
     */
    default java.util.Set<String> names() {
        return java.util.Set.of();
    }
}
