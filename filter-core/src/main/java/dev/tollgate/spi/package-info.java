/**
 * Extension points: custom client key resolvers ({@link dev.tollgate.spi.KeyResolverProvider},
 * found through {@link java.util.ServiceLoader}). The bucket stores are not one: nothing public
 * accepts a store, and their contract lives in {@code dev.tollgate.internal.bucket}.
 */
package dev.tollgate.spi;
