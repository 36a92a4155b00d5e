package dev.tollgate.jaxrs;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;

/**
 * Puts the peer address of the servlet request behind a JAX-RS request into a request property,
 * for Tollgate's filters. JAX-RS has no portable API for the peer address, and runtimes inject
 * {@code @Context} fields only into providers they create themselves (Jersey does not inject
 * instances registered by a {@code DynamicFeature}), so {@link TollgateFeature} registers this
 * class, not an instance, and it runs just before the first Tollgate filter.
 *
 * <p>Registered by {@link TollgateFeature}; not meant to be registered by applications.
 */
public final class RemoteAddressFilter implements ContainerRequestFilter {

    static final String PROPERTY = "dev.tollgate.remote-address";

    @Context
    private HttpServletRequest servletRequest;

    @Override
    public void filter(ContainerRequestContext request) {
        try {
            if (servletRequest != null && request.getProperty(PROPERTY) == null) {
                request.setProperty(PROPERTY, servletRequest.getRemoteAddr());
            }
        } catch (RuntimeException e) {
            // no servlet request behind this JAX-RS request: Tollgate keys such clients as "unknown"
        }
    }
}
