package dev.tollgate;

import java.time.Duration;

/**
 * A policy's concurrency limit: at most {@code slots} requests of one client in flight at once,
 * across every node that shares the store. A slot is a lease taken when a request is admitted and
 * given back when its response completes; a lease not given back (its node died or hung) expires
 * after {@code lease}, so a request running longer than its lease no longer counts.
 *
 * <p>Immutable and thread-safe.
 *
 * @param slots the most requests in flight per client, 1 to {@value #MAX_SLOTS}
 * @param lease how long a slot is held at most, 1 s to 1 day
 */
public record Concurrency(int slots, Duration lease) {

    /** The most slots per client: the bound on the leases one client's key holds. */
    public static final int MAX_SLOTS = 10_000;
    /** The shortest lease: Retry-After speaks in whole seconds. */
    public static final Duration MIN_LEASE = Duration.ofSeconds(1);
    /** The longest lease. */
    public static final Duration MAX_LEASE = Duration.ofDays(1);
    /** The lease when none is configured. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);

    public Concurrency {
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("concurrency must be 1 to " + MAX_SLOTS + ", got " + slots);
        }
        if (lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("a lease must be 1s to 1 day, got " + lease);
        }
    }

    /** The lease in whole microseconds. */
    public long leaseMicros() {
        return lease.toNanos() / 1000;
    }

    /**
     * The limit the stores count the slots with: {@code slots} leases, each held for the lease.
     * Its text names it, so that a {@link LimitState} of a concurrency limit is told from a rate
     * limit's ({@link PolicyResult#isConcurrency}).
     */
    public Limit limit() {
        return new Limit(slots, 1, leaseMicros(), leaseMicros(), slots + " in flight");
    }
}
