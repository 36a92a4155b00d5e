/**
 * The JAX-RS adapter: {@code @RateLimited}, a {@code DynamicFeature} and the request and response
 * filters over the shared core.
 */
package dev.tollgate.jaxrs;
