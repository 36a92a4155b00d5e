/**
 * For those who write an integration (the servlet filter, the JAX-RS feature, the CDI
 * interceptor, or one of your own): the messages an integration logs and the answer it gives
 * while no limiter runs, so that every integration says the same things the same way.
 * Applications never need it.
 */
package dev.tollgate.adapter;
