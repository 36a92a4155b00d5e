package dev.tollgate.internal.local;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The live concurrency leases of one client under one policy, in memory: the in-memory twin of a
 * lease bucket in Redis ({@code bucket.lua}, algorithm {@code c}). Each lease is its id and its
 * expiry in µs of the store's clock.
 *
 * <p>Not thread-safe: {@link LocalStore} holds the lock of its stripe around every use.
 */
final class Leases {

    private final Map<String, Long> expiries = new HashMap<>();

    /** Drops the leases that expired at or before {@code now}; returns how many are left. */
    int live(long now) {
        Iterator<Long> it = expiries.values().iterator();
        while (it.hasNext()) {
            if (it.next() <= now) {
                it.remove();
            }
        }
        return expiries.size();
    }

    void take(String id, long expiresMicros) {
        expiries.put(id, expiresMicros);
    }

    /** Whether the lease was there (live and not yet given back). */
    boolean release(String id) {
        return expiries.remove(id) != null;
    }

    boolean isEmpty() {
        return expiries.isEmpty();
    }

    /** The earliest expiry, or {@code Long.MAX_VALUE} when none is held. */
    long oldest() {
        long min = Long.MAX_VALUE;
        for (long e : expiries.values()) {
            min = Math.min(min, e);
        }
        return min;
    }

    /** The expiry of the {@code k}-th oldest lease, from 0; the newest when {@code k} is past the last. */
    long expiryOf(int k) {
        long[] sorted = expiries.values().stream().mapToLong(Long::longValue).sorted().toArray();
        return sorted[Math.max(0, Math.min(k, sorted.length - 1))];
    }

    /** The latest expiry, or {@code Long.MIN_VALUE} when none is held. */
    long newest() {
        long max = Long.MIN_VALUE;
        for (long e : expiries.values()) {
            max = Math.max(max, e);
        }
        return max;
    }
}
