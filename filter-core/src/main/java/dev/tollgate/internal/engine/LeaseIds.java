package dev.tollgate.internal.engine;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unique ids for concurrency leases: a random part drawn once per class loader (so two nodes, or
 * two applications of one server, do not share it) and a counter. Short, because every live lease
 * stores its id in Redis.
 *
 * <p>Thread-safe.
 */
final class LeaseIds {

    private static final String NODE = Long.toString(new SecureRandom().nextLong() >>> 4, 36);
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private LeaseIds() {
    }

    static String next() {
        return NODE + "." + Long.toString(SEQUENCE.incrementAndGet(), 36);
    }
}
