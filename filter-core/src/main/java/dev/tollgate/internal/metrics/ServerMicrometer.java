package dev.tollgate.internal.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Micrometer as the server gives it: the {@code MeterRegistry} bean of WildFly's
 * {@code micrometer} subsystem when the application has one, else Micrometer's global registry
 * (where an application adds its own registries). Loaded only when Micrometer is present.
 * Thread-safe.
 */
public final class ServerMicrometer {

    private ServerMicrometer() {
    }

    public static Destination create(String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        MeterRegistry server = CdiBeans.apiPresent() ? CdiBeans.find(MeterRegistry.class) : null;
        if (server != null) {
            // by name and tags: WildFly's per-deployment registry forwards nothing else (see MicrometerByName)
            return new Destination("the server's MeterRegistry (CDI bean)",
                    MicrometerByName.of(server, limiter, circuitState, fallbackNanos));
        }
        return new Destination("Micrometer's global registry",
                MicrometerMetrics.of(Metrics.globalRegistry, limiter, circuitState, fallbackNanos));
    }
}
