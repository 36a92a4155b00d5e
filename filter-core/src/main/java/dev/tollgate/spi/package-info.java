/**
 * Extension points: custom client key resolvers ({@link dev.tollgate.spi.KeyResolverProvider},
 * found through {@link java.util.ServiceLoader}) and bucket stores.
 */
package dev.tollgate.spi;
