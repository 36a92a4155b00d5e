package dev.tollgate.health;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessBean;
import java.util.logging.Logger;

/**
 * Registers {@link TollgateHealthCheck} as a {@code @Readiness} bean in every CDI application that
 * sees the MicroProfile Health API (WildFly with its {@code microprofile-health-smallrye}
 * subsystem, Payara), so that the server's {@code /health/ready} reports Tollgate without a line
 * of application code.
 *
 * <p>Where it does nothing: a container without CDI (Tomcat) never reads the service file that
 * names this class; a CDI container without MicroProfile Health gets no bean, and none of the
 * MicroProfile Health classes is loaded; an application that declares its own bean extending
 * {@link TollgateHealthCheck} keeps that one, and no second check is added (the rule: one
 * {@code tollgate} check per application, the application's if it has one).
 *
 * <p>CDI calls it during deployment, one event at a time; not for use by applications.
 */
public class TollgateHealthExtension implements Extension {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");
    private static final String CHECK = "dev.tollgate.health.TollgateHealthCheck";

    private volatile boolean declaredByApplication;

    /** Notes a bean of the application that already is a Tollgate check (a subclass of {@link TollgateHealthCheck}). */
    void seeBean(@Observes ProcessBean<?> event) {
        // By name, not TollgateHealthCheck.class: without MicroProfile Health that class cannot load.
        for (Class<?> c = event.getBean().getBeanClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            if (c.getName().equals(CHECK)) {
                declaredByApplication = true;
                return;
            }
        }
    }

    void addReadiness(@Observes AfterBeanDiscovery event) {
        if (declaredByApplication) {
            LOG.fine("Tollgate: the application declares its own TollgateHealthCheck bean; no second readiness check is added");
            return;
        }
        if (!healthApiVisible(TollgateHealthExtension.class.getClassLoader())) {
            return;
        }
        ReadinessBean.add(event);
    }

    /** Whether the MicroProfile Health API can be loaded where Tollgate is. */
    static boolean healthApiVisible(ClassLoader loader) {
        try {
            Class.forName("org.eclipse.microprofile.health.Readiness", false, loader);
            Class.forName("org.eclipse.microprofile.health.HealthCheck", false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
