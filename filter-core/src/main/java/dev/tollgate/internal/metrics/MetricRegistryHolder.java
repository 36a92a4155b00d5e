package dev.tollgate.internal.metrics;

import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * Receives the application's {@link MetricRegistry} by injection, as MicroProfile Metrics means
 * it to be had: Payara's producer reads the injection point (for {@code @RegistryScope}) and fails
 * on a programmatic lookup, which has none. Added as a bean by {@link MetricRegistryExtension}
 * only where MicroProfile Metrics is present. Not thread-safe to change; read after injection.
 */
public class MetricRegistryHolder {

    @Inject
    MetricRegistry registry;

    MetricRegistry registry() {
        return registry;
    }
}
