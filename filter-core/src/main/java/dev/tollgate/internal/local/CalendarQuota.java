package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;

/**
 * The in-memory state of one client's calendar quotas under one policy, as {@code bucket.lua}
 * keeps it in a string: per limit the start of its window and the cost taken in it. A count of
 * an earlier window counts nothing.
 *
 * <p>Not thread-safe: {@link LocalStore} guards it with its stripe lock; it is replaced, never
 * changed, once stored.
 */
final class CalendarQuota {

    private final long[] startMicros;
    private final long[] counts;
    /** When the last of its windows ends; then it is the same as absent. */
    final long expiresMicros;

    CalendarQuota(long[] startMicros, long[] counts, long expiresMicros) {
        this.startMicros = startMicros;
        this.counts = counts;
        this.expiresMicros = expiresMicros;
    }

    int limits() {
        return counts.length;
    }

    /** What limit {@code j} has taken in the window that starts at {@code windowStartMicros}. */
    long used(int j, long windowStartMicros) {
        return startMicros[j] == windowStartMicros ? counts[j] : 0;
    }

    /**
     * Where one calendar limit stands, as {@code bucket.lua} answers it: {@code after} is what
     * its window holds after the decision, {@code wanted} what it held before plus the cost.
     * Until the window's end one more becomes free, the quota is full and a refused request can
     * pass; never said as less than 1 µs.
     */
    static LimitState answer(Limit limit, long nowMicros, long endMicros, long after, long wanted) {
        long left = Math.max(1, endMicros - nowMicros);
        long next = after > 0 ? left : 0;
        return new LimitState(limit, Math.max(0, limit.capacity() - after), next, next,
                wanted > limit.capacity() ? left : 0);
    }
}
