package dev.tollgate.internal.metrics;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

/**
 * The beans a server gives the application through CDI (its OpenTelemetry, MeterRegistry or
 * MetricRegistry). Loaded only where the CDI API is present: callers ask {@link #apiPresent}
 * first. Thread-safe.
 */
final class CdiBeans {

    private CdiBeans() {
    }

    static boolean apiPresent() {
        try {
            Class.forName("jakarta.enterprise.inject.spi.CDI", false, CdiBeans.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The one bean of this type with the default qualifier in the application's CDI container;
     * {@code null} when the application has no CDI container, no such bean, or more than one.
     */
    static <T> T find(Class<T> type) {
        try {
            Instance<T> candidates = CDI.current().select(type);
            return candidates.isResolvable() ? candidates.get() : null;
        } catch (RuntimeException | LinkageError e) {
            // no container for this application (CDI.current() throws IllegalStateException), or
            // a bean that cannot be made: the caller falls back on the global registry
            return null;
        }
    }
}
