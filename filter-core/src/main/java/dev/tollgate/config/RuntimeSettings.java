package dev.tollgate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How the limiter runs beside the application: where metrics go, how often the configuration is
 * read again, whether a JMX bean is registered, how log lines name clients. Built by
 * {@link #builder()}; immutable and thread-safe.
 */
public final class RuntimeSettings {

    /** Every value its key's default. */
    public static final RuntimeSettings DEFAULTS = builder().build();

    private final String metrics;
    private final Duration reloadInterval;
    private final boolean jmx;
    private final boolean clearClientKeys;

    private RuntimeSettings(Builder b) {
        this.metrics = Objects.requireNonNull(b.metrics, "metrics");
        this.reloadInterval = Objects.requireNonNull(b.reloadInterval, "reloadInterval");
        this.jmx = b.jmx;
        this.clearClientKeys = b.clearClientKeys;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Where metrics go: {@code auto}, {@code none}, {@code opentelemetry}, {@code micrometer} ({@code tollgate.metrics}). */
    public String metrics() {
        return metrics;
    }

    /** How often the configuration is read again; zero: never ({@code tollgate.reload-interval}). */
    public Duration reloadInterval() {
        return reloadInterval;
    }

    /** Whether the limiter registers a JMX bean ({@code tollgate.jmx}). */
    public boolean jmx() {
        return jmx;
    }

    /** Whether log lines name clients by their whole key ({@code tollgate.log.client-keys=clear}) rather than a fingerprint. */
    public boolean clearClientKeys() {
        return clearClientKeys;
    }

    @Override
    public String toString() {
        return "RuntimeSettings[metrics=" + metrics + ", reloadInterval=" + reloadInterval + ", jmx=" + jmx
                + ", clearClientKeys=" + clearClientKeys + "]";
    }

    /** Builds {@link RuntimeSettings}, every value starting at its key's default. Not thread-safe. */
    public static final class Builder {
        private String metrics = Settings.METRICS.defaultValue();
        private Duration reloadInterval = Settings.RELOAD_INTERVAL.defaultValue();
        private boolean jmx = Settings.JMX.defaultValue();
        private boolean clearClientKeys = Settings.LOG_CLIENT_KEYS.defaultValue();

        private Builder() {
        }

        public Builder metrics(String where) {
            this.metrics = where;
            return this;
        }

        public Builder reloadInterval(Duration every) {
            this.reloadInterval = every;
            return this;
        }

        public Builder jmx(boolean register) {
            this.jmx = register;
            return this;
        }

        public Builder clearClientKeys(boolean clear) {
            this.clearClientKeys = clear;
            return this;
        }

        public RuntimeSettings build() {
            return new RuntimeSettings(this);
        }
    }
}
