package dev.tollgate;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.MicroClock;
import java.util.function.Supplier;

/**
 * The harness' way to {@link RateLimiter}'s clock seam: a limiter on a node whose own clock is off
 * the system's by {@code offsetMicros}, as a host whose clock is hours behind or ahead would be. In
 * Tollgate's package because the seam is package-private; test code only.
 */
public final class NodeClocks {

    private NodeClocks() {
    }

    /** {@link RateLimiter#create(TollgateConfig, String, Supplier)} on a clock {@code offsetMicros} off the system's. */
    public static RateLimiter create(TollgateConfig config, String name, Supplier<TollgateConfig> reloader, long offsetMicros) {
        MicroClock clock = offsetMicros == 0 ? null : () -> MicroClock.SYSTEM.nowMicros() + offsetMicros;
        return RateLimiter.create(config, name, reloader, Thread.currentThread().getContextClassLoader(), clock);
    }
}
