package dev.tollgate.internal.metrics;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * OpenTelemetry as the server gives it: the {@code OpenTelemetry} bean of MicroProfile Telemetry
 * (WildFly's {@code microprofile-telemetry} subsystem, Payara) when the application has one, else
 * {@link GlobalOpenTelemetry} (an agent's, or the one the application's SDK registered). Loaded
 * only when the OpenTelemetry API is present. Thread-safe.
 */
public final class ServerOpenTelemetry {

    private ServerOpenTelemetry() {
    }

    public static Destination create(String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        OpenTelemetry server = CdiBeans.apiPresent() ? CdiBeans.find(OpenTelemetry.class) : null;
        if (server != null) {
            return new Destination("the server's OpenTelemetry (CDI bean, MicroProfile Telemetry)",
                    OpenTelemetryMetrics.of(server, limiter, circuitState, fallbackNanos));
        }
        return new Destination("GlobalOpenTelemetry",
                OpenTelemetryMetrics.of(GlobalOpenTelemetry.get(), limiter, circuitState, fallbackNanos));
    }
}
