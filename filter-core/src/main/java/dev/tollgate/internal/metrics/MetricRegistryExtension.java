package dev.tollgate.internal.metrics;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;

/**
 * Adds {@link MetricRegistryHolder} as a bean where the application sees MicroProfile Metrics
 * (Payara), so that {@link MicroProfileMetrics} can reach the application's registry; elsewhere it
 * adds nothing and loads no MicroProfile Metrics class. CDI calls it during deployment; not for
 * use by applications.
 */
public class MetricRegistryExtension implements Extension {

    void addHolder(@Observes BeforeBeanDiscovery event, BeanManager beans) {
        ClassLoader loader = MetricRegistryExtension.class.getClassLoader();
        try {
            Class.forName("org.eclipse.microprofile.metrics.MetricRegistry", false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return;
        }
        event.addAnnotatedType(beans.createAnnotatedType(MetricRegistryHolder.class), MetricRegistryHolder.class.getName());
    }
}
