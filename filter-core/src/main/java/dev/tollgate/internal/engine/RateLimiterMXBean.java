package dev.tollgate.internal.engine;

/**
 * What JMX shows of a limiter ({@code dev.tollgate:type=RateLimiter,name=...}), and the reload an
 * operator can call from a JMX console on any server.
 */
public interface RateLimiterMXBean {

    String getCircuit();

    boolean isReady();

    boolean isFallback();

    long getRedisCalls();

    long getRedisFailures();

    String getLastFailure();

    /** The configuration in force, as logged at start-up (no secrets). */
    String getConfiguration();

    /** Reads the configuration again; returns what happened. */
    String reload();
}
