/**
 * Limiting outbound calls: {@link dev.tollgate.jaxrs.client.TollgateClientFilter}, a JAX-RS client
 * filter that keeps every node sharing a store under a remote API's quota, waits for its token
 * rather than failing, and pauses all nodes when the remote says so.
 */
package dev.tollgate.jaxrs.client;
