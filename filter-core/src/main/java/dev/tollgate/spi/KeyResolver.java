package dev.tollgate.spi;

import dev.tollgate.RequestView;

/**
 * Finds what identifies the client of a request: an address, an API key, a user.
 *
 * <p>Implementations must be thread-safe and must not throw for any input a client controls:
 * a request that carries no usable key answers {@code null}, and the policy's next alternative
 * (finally the peer address) is used.
 */
@FunctionalInterface
public interface KeyResolver {

    /**
     * @return the client key, or {@code null} when this request has none. The value may be any
     * string; the core bounds and hashes it before it reaches a store.
     */
    String resolve(RequestView request);

    /**
     * Whether this resolver reads the authenticated principal (or its roles). The JAX-RS adapter
     * checks such policies after authentication filters have run, and the others before them.
     */
    default boolean usesPrincipal() {
        return false;
    }
}
