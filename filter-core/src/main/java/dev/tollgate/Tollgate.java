package dev.tollgate;

import dev.tollgate.config.TollgateConfig;

/**
 * Where code starts when it limits work that is no HTTP request:
 * {@code Tollgate.limiter(config).acquire("exports", "tenant=acme", 3)}. See {@link Limiter}.
 *
 * <p>Stateless; thread-safe.
 */
public final class Tollgate {

    private Tollgate() {
    }

    /**
     * A limiter with an engine of its own, on the store the configuration names (Redis, shared
     * with every filter on it; else this node's memory), named {@code programmatic} in logs,
     * metrics, JMX and health. Close it when done: that closes its engine and Redis connections.
     * An unreachable Redis does not stop it: the failure mode applies until Redis answers.
     */
    public static Limiter limiter(TollgateConfig config) {
        return limiter(config, "programmatic");
    }

    /** {@link #limiter(TollgateConfig)} under another name (one per limiter of a process, for JMX). */
    public static Limiter limiter(TollgateConfig config, String name) {
        return new Limiter(RateLimiter.create(config, name, null), true, Limiter.Waits.SYSTEM);
    }

    /**
     * A limiter on an engine that exists already (a filter's, one made by {@link RateLimiter#create}):
     * its configuration, reloads and store. Closing the limiter leaves the engine open.
     */
    public static Limiter limiter(RateLimiter engine) {
        if (engine == null) {
            throw new IllegalArgumentException("engine must be a RateLimiter, got null");
        }
        return new Limiter(engine, false, Limiter.Waits.SYSTEM);
    }
}
