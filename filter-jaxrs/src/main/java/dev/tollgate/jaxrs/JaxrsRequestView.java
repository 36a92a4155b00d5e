package dev.tollgate.jaxrs;

import dev.tollgate.RequestView;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.List;

/** A JAX-RS request as the core sees it. Every method answers without throwing. */
final class JaxrsRequestView implements RequestView {

    private final ContainerRequestContext request;
    private final String route;
    JaxrsRequestView(ContainerRequestContext request, String route) {
        this.request = request;
        this.route = route;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /**
     * The decoded path relative to the JAX-RS application's base ({@code @ApplicationPath}), as the
     * runtime routed it. Jersey keeps matrix parameters and a trailing slash in it
     * ({@code login;a=b/}) though it routes past them, and routes dot segments as segments;
     * matching reads the path that way ({@link dev.tollgate.RequestMatcher#parse}).
     */
    @Override
    public String path() {
        String p = request.getUriInfo().getPath();
        if (p == null || p.isEmpty()) {
            return "/";
        }
        return p.charAt(0) == '/' ? p : "/" + p;
    }

    /** The template of the matched resource method, e.g. {@code /users/{id}}. */
    @Override
    public String route() {
        return route;
    }

    /** The servlet request's peer address, as {@link RemoteAddressFilter} recorded it. */
    @Override
    public String remoteAddress() {
        Object a = request.getProperty(RemoteAddressFilter.PROPERTY);
        return a instanceof String ? (String) a : null;
    }

    @Override
    public String header(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null ? List.of() : values;
    }

    /** The principal of the JAX-RS security context: the container's, or one set by an earlier filter. */
    @Override
    public String principal() {
        SecurityContext sc = request.getSecurityContext();
        Principal p = sc == null ? null : sc.getUserPrincipal();
        return p == null ? null : p.getName();
    }

    @Override
    public boolean userInRole(String role) {
        SecurityContext sc = request.getSecurityContext();
        return sc != null && sc.getUserPrincipal() != null && sc.isUserInRole(role);
    }
}
