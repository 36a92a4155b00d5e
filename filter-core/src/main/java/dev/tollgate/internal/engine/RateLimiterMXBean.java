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

    /**
     * What one client's buckets under a policy hold in Redis: tokens left and time to full per
     * limit (a calendar quota: what is left and when its window ends), leases in flight, a pause.
     *
     * @param client the client key as the policy's resolver makes it, e.g. {@code ip=198.51.100.7}
     */
    String inspect(String policy, String client);

    /** Empties one client's buckets under a policy in Redis; logged ({@code TOLLGATE-040}) with who asked. */
    String reset(String policy, String client);
}
