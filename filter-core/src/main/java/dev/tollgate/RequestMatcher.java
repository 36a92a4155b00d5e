package dev.tollgate;

import dev.tollgate.internal.match.RequestPatterns;

/**
 * Decides which requests a policy covers, from a method and a path.
 *
 * <p>Thread-safe.
 */
@FunctionalInterface
public interface RequestMatcher {

    boolean matches(String method, String path);

    /**
     * A matcher that covers every request: {@code /**}; the default when {@code match} is not set,
     * and the only matcher that says so ({@link Policy#hasOwnMatch()}): such a policy that code names
     * ({@code @RateLimited}) applies only where it is named.
     */
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
     * {@code POST /login}, {@code GET /search/**}. In a pattern {@code *} matches within one
     * path segment and {@code **} matches any number of whole segments, including none.
     *
     * <p>A pattern covers every spelling the application serves the same way: an entry naming
     * {@code GET} also covers {@code HEAD}, and the path is matched without path parameters
     * ({@code ;a=b} on any segment) and trailing slashes, as servlet containers and JAX-RS
     * runtimes route it, and also with empty and dot segments resolved. So {@code /login} matches
     * {@code /login/}, {@code /login;a=b} and {@code /x/../login}, and {@code /files/*} matches
     * {@code /files/..}, which JAX-RS routes to {@code files/{name}}.
     *
     * @throws IllegalArgumentException naming what is wrong and what is accepted
     */
    static RequestMatcher parse(String text) {
        RequestPatterns patterns = RequestPatterns.parse(text);
        final class Parsed implements RequestMatcher, RequestPatterns.Backed {
            @Override
            public boolean matches(String method, String path) {
                return patterns.matches(method, path);
            }

            @Override
            public RequestPatterns patterns() {
                return patterns;
            }

            @Override
            public String toString() {
                return patterns.toString();
            }
        }
        return new Parsed();
    }
}
