package dev.tollgate;

import java.util.List;

/**
 * What the core sees of an HTTP request. The servlet and JAX-RS adapters implement it over
 * their own request types; everything else in Tollgate works on this view only.
 *
 * <p>Implementations are used by one thread for one request and need not be thread-safe. Every
 * method must answer without throwing, whatever the client sent.
 */
public interface RequestView {

    /** The HTTP method, upper case, e.g. {@code GET}. */
    String method();

    /**
     * The path inside the application (without the context path), decoded, starting with
     * {@code /}: as the container gives it. A servlet container has removed path parameters and
     * resolved dot segments; a JAX-RS runtime may have left path parameters, a trailing slash and
     * dot segments in it. Matching reads both forms alike (see {@link RequestMatcher}).
     */
    String path();

    /**
     * The route the request matched, when the adapter knows it: the JAX-RS template such as
     * {@code /users/{id}}, or the servlet mapping pattern such as {@code /api/*}. {@code null}
     * when unknown.
     */
    String route();

    /** The address of the peer that opened the connection (no proxy headers applied). */
    String remoteAddress();

    /**
     * The client's address as a key: the peer, or, behind trusted proxies, the first untrusted
     * address of the forwarding header; IPv6 grouped by its configured prefix
     * ({@code 2001:db8:1:2::/64}). The engine supplies it (see {@link ClientAddresses}); an
     * adapter need not implement it.
     */
    default String clientAddress() {
        return remoteAddress();
    }

    /** The first value of a request header, or {@code null}. */
    String header(String name);

    /** Every value of a request header, in order, each field line as sent; empty when absent. */
    List<String> headers(String name);

    /** The authenticated principal's name, or {@code null} when anonymous. */
    String principal();

    /** Whether the authenticated principal has the role; {@code false} when anonymous. */
    boolean userInRole(String role);

    /**
     * A client key the integration chose for this request instead of the policies' {@code key}
     * (the CDI interceptor's {@code @RateLimitKey} arguments, or its key for a call outside any
     * HTTP request); {@code null} (the default) lets each policy's key resolver find it. The
     * core bounds and makes it safe like any other key.
     */
    default String clientKey() {
        return null;
    }
}
