package dev.tollgate.jaxrs;

import dev.tollgate.config.ConfigSources;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import java.util.Set;

/**
 * Gives back the concurrency slots of a JAX-RS request when its servlet request ends, for the
 * responses neither the response filter nor the writer interceptor sees: an exception that no
 * mapper handles goes to the servlet container (JAX-RS requires it), and for an async resource
 * resumed with one, Jersey then runs neither. The request filters keep their permits in a request property, which JAX-RS
 * keeps as a servlet request attribute in a servlet container; containers end an async request's
 * scope ({@code requestDestroyed}) when it completes. Usually the response filter (a response
 * without an entity) or the writer interceptor (once the entity has been written) has given the
 * slots back already; a permit gives them back once, whoever calls first.
 *
 * <p>It also tells Tollgate what the application is (its context path, at the root path its
 * display name), the namespace of its keys unless {@code tollgate.namespace} is set.
 *
 * <p>Found by the container through {@code META-INF/services}; applications do nothing. Stateless;
 * thread-safe.
 */
public final class SlotReleaseListener implements ServletContainerInitializer, ServletRequestListener {

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) {
        context.addListener(this);
        // what this application is, for its namespace: the feature and the CDI interceptor find it by class loader
        ConfigSources.application(context.getClassLoader(), context.getContextPath(), context.getServletContextName());
    }

    @Override
    public void requestDestroyed(ServletRequestEvent event) {
        try {
            TollgateResponseFilter.release(event.getServletRequest().getAttribute(TollgateRequestFilter.PERMITS));
        } catch (RuntimeException e) {
            // a request that cannot be read any more: its slots expire with their lease
        }
    }
}
