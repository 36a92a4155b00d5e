package dev.tollgate;

import dev.tollgate.internal.RequestPatterns;

/**
 * Decides which requests a policy covers, from a method and a path.
 *
 * <p>Thread-safe.
 */
@FunctionalInterface
public interface RequestMatcher {

    boolean matches(String method, String path);

    /** A matcher that covers every request: {@code /**}; the default when {@code match} is not set. */
    RequestMatcher ALL = new RequestMatcher() {
        @Override
        public boolean matches(String method, String path) {
            return true;
        }

        @Override
        public String toString() {
            return "/**";
        }
    };

    /**
     * Parses the {@code match} syntax: one or more comma-separated entries, each an optional
     * method (or several joined by {@code |}) and a path pattern: {@code /api/**},
     * {@code POST /login}, {@code GET|HEAD /search/**}. In a pattern {@code *} matches within one
     * path segment and {@code **} matches any number of whole segments, including none.
     *
     * @throws IllegalArgumentException naming what is wrong and what is accepted
     */
    static RequestMatcher parse(String text) {
        return RequestPatterns.parse(text);
    }
}
