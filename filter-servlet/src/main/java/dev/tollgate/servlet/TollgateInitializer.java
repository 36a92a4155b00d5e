package dev.tollgate.servlet;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.HealthSettings;
import dev.tollgate.config.Settings;
import dev.tollgate.config.TollgateConfig;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Checks the configuration of every {@link TollgateFilter} declared in the application while it
 * deploys, before any request. Containers start filters at different times (WildFly at the first
 * request) and some deploy an application whose filter failed to start (Payara); a bad value
 * must stop the deployment everywhere instead, with its message. With {@code tollgate.health.path}
 * set, it also maps the filter to that path, so the filter answers it whatever its own mapping.
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
            HealthSettings health;
            try {
                ConfigLookup lookup = TollgateFilter.lookup(context, e.getKey(), r::getInitParameter,
                        () -> r.getInitParameters().keySet());
                TollgateConfig.load(lookup, context.getClassLoader());
                health = HealthSettings.load(lookup);
            } catch (ConfigException ex) {
                LOG.severe(ex.getMessage());
                throw new ServletException(ex.getMessage(), ex);
            }
            if (health.enabled()) {
                mapHealth(e.getKey(), r, health.path());
            }
        }
    }

    /**
     * Maps the filter to its health paths too, ahead of the application's filters there, so that
     * they reach it whatever the filter's own mapping ({@code /api/*}) covers.
     */
    private static void mapHealth(String filterName, FilterRegistration r, String path) {
        try {
            r.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, path, path + "/ready", path + "/live");
        } catch (RuntimeException ex) {
            LOG.warning("TollgateFilter '" + filterName + "' could not be mapped to " + Settings.HEALTH_PATH.name() + " = " + path
                    + " (" + ex + "); map it there in web.xml for the path to be answered");
        }
    }
}
