package dev.tollgate.servlet;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.TollgateConfig;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Checks the configuration of every {@link TollgateFilter} declared in the application while it
 * deploys, before any request. Containers start filters at different times (WildFly at the first
 * request) and some deploy an application whose filter failed to start (Payara); a bad value
 * must stop the deployment everywhere instead, with its message.
 *
 * <p>Found by the container through {@code META-INF/services}; applications do nothing.
 */
public final class TollgateInitializer implements ServletContainerInitializer {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) throws ServletException {
        // what this application is, for its namespace: the CDI interceptor's own limiter finds it by class loader
        TollgateFilter.application(context);
        for (Map.Entry<String, ? extends FilterRegistration> e : context.getFilterRegistrations().entrySet()) {
            FilterRegistration r = e.getValue();
            if (!TollgateFilter.class.getName().equals(r.getClassName())) {
                continue;
            }
            try {
                TollgateConfig.load(TollgateFilter.lookup(context, e.getKey(), r::getInitParameter,
                        () -> r.getInitParameters().keySet()), context.getClassLoader());
            } catch (ConfigException ex) {
                LOG.severe(ex.getMessage());
                throw new ServletException(ex.getMessage(), ex);
            }
        }
    }
}
