package dev.tollgate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * What the answers say: which headers responses carry, the jitter added to {@code Retry-After},
 * and whether the JAX-RS adapter applies policies by {@code match} to resources without
 * {@code @RateLimited}. Built by {@link #builder()}; immutable and thread-safe.
 */
public final class HttpSettings {

    /** Every value its key's default. */
    public static final HttpSettings DEFAULTS = builder().build();

    private final HeaderStyle headers;
    private final Duration retryAfterJitter;
    private final boolean jaxrsGlobal;

    private HttpSettings(Builder b) {
        this.headers = Objects.requireNonNull(b.headers, "headers");
        this.retryAfterJitter = Objects.requireNonNull(b.retryAfterJitter, "retryAfterJitter");
        this.jaxrsGlobal = b.jaxrsGlobal;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Which rate-limit headers responses carry ({@code tollgate.headers}). */
    public HeaderStyle headers() {
        return headers;
    }

    /** The most added at random to {@code Retry-After} ({@code tollgate.retry-after-jitter}). */
    public Duration retryAfterJitter() {
        return retryAfterJitter;
    }

    /** Whether the JAX-RS adapter applies policies by {@code match} to every resource ({@code tollgate.jaxrs.global}). */
    public boolean jaxrsGlobal() {
        return jaxrsGlobal;
    }

    @Override
    public String toString() {
        return "HttpSettings[headers=" + headers + ", retryAfterJitter=" + retryAfterJitter + ", jaxrsGlobal=" + jaxrsGlobal + "]";
    }

    /** Builds {@link HttpSettings}, every value starting at its key's default. Not thread-safe. */
    public static final class Builder {
        private HeaderStyle headers = Settings.HEADERS.defaultValue();
        private Duration retryAfterJitter = Settings.RETRY_AFTER_JITTER.defaultValue();
        private boolean jaxrsGlobal = Settings.JAXRS_GLOBAL.defaultValue();

        private Builder() {
        }

        public Builder headers(HeaderStyle style) {
            this.headers = style;
            return this;
        }

        public Builder retryAfterJitter(Duration most) {
            this.retryAfterJitter = most;
            return this;
        }

        public Builder jaxrsGlobal(boolean global) {
            this.jaxrsGlobal = global;
            return this;
        }

        public HttpSettings build() {
            return new HttpSettings(this);
        }
    }
}
