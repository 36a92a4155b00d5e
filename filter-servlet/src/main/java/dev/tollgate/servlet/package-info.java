/**
 * The servlet adapter: {@link dev.tollgate.servlet.TollgateFilter}. It turns a request into a
 * {@link dev.tollgate.RequestView} and a {@link dev.tollgate.Decision} into a response; everything
 * else is in the core.
 */
package dev.tollgate.servlet;
