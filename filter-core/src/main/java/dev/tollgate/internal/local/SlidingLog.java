package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import java.util.Arrays;

/**
 * The in-memory sliding log of one client and policy: the times of its admitted requests,
 * oldest first, in a ring. {@code bucket.lua} does the same with a sorted set.
 *
 * <p>The ring holds slots for what is stored, not for what the limit allows: it starts empty,
 * doubles when full (never beyond the largest count of the policy) and halves its excess when a
 * quarter or less is used, so it never has more than {@code max(4, 4 x entries)} slots. A
 * {@code 10000/h} client that sends one request costs a few slots, not 10,000.
 *
 * <p>Not thread-safe: {@link LocalStore} guards it with its stripe lock.
 */
final class SlidingLog {

    private static final long[] EMPTY = new long[0];
    private static final int MIN_SLOTS = 4;

    private long[] times = EMPTY;
    private int head;
    private int size;
    /** The slots {@link LocalStore} has counted for this log. */
    int charged;

    /**
     * Keeps only the newest {@code most} entries: a log that holds more than a limit's count
     * admits nothing under it until the surplus has left its window. Only a reload that lowered a
     * count leaves more; the first read under it trims them, and later reads find nothing to do.
     */
    void keepNewest(long most) {
        dropWhile(Long.MIN_VALUE, most);
    }

    /**
     * Drops every entry at or before {@code t}: they are out of every window. Done only when a
     * request is taken, never on a refused read, so that a refusal changes nothing a later read
     * can tell (a reload that lengthens the window counts them again; see bucket.lua).
     */
    void dropUpTo(long t) {
        dropWhile(t, Long.MAX_VALUE);
    }

    private void dropWhile(long t, long most) {
        while (size > 0 && (times[head] <= t || size > most)) {
            head = (head + 1) % times.length;
            size--;
        }
        if (times.length > MIN_SLOTS && size <= times.length / 4) {
            resize(Math.max(MIN_SLOTS, 2 * size));
        }
    }

    /** How many entries are after {@code t}. */
    int countAfter(long t) {
        return size - firstAfter(t);
    }

    /** The {@code k}-th (1-based, oldest first) entry after {@code t}. */
    long after(long t, int k) {
        return at(firstAfter(t) + k - 1);
    }

    long newest() {
        return at(size - 1);
    }

    /** Adds {@code count} entries at {@code now}; the ring grows to at most {@code most} slots, or what it must hold. */
    void add(long now, long count, long most) {
        long needed = size + count;
        if (needed > times.length) {
            long doubled = Math.min(Math.max(MIN_SLOTS, 2L * times.length), most);
            resize((int) Math.max(needed, doubled));
        }
        for (long i = 0; i < count; i++) {
            times[(head + size) % times.length] = now;
            size++;
        }
    }

    private void resize(int slots) {
        long[] copy = new long[slots];
        for (int i = 0; i < size; i++) {
            copy[i] = at(i);
        }
        times = copy;
        head = 0;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The slots allocated, used or not: 8 bytes each. */
    int slots() {
        return times.length;
    }

    private long at(int i) {
        return times[(head + i) % times.length];
    }

    /** The index of the first entry after {@code t} (binary search; entries are in time order). */
    private int firstAfter(long t) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (at(mid) <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Where one limit stands after a decision, as {@code bucket.lua} answers it. {@code wanted} is
     * the entries in the window before this request plus its cost; when the request was taken,
     * the log already holds it.
     */
    LimitState answer(Limit limit, long now, long wanted) {
        long allowed = limit.capacity();
        long window = limit.windowMicros();
        long since = now - window;
        int after = countAfter(since);
        long remaining = Math.max(0, allowed - after);
        // one more is free when the entries in the window drop to (allowed - remaining - 1)
        long next = after > 0 ? after(since, (int) Math.max(1, after - allowed + 1)) + window - now : 0;
        long reset = after > 0 ? newest() + window - now : 0;
        long retry = 0;
        if (wanted > allowed) {
            long k = wanted - allowed;
            // a cost above the count could never pass (the configuration forbids it): say a window
            retry = k <= after ? after(since, (int) k) + window - now : window;
        }
        return new LimitState(limit, remaining, next, reset, retry);
    }

    @Override
    public String toString() {
        long[] copy = new long[size];
        for (int i = 0; i < size; i++) {
            copy[i] = at(i);
        }
        return Arrays.toString(copy);
    }
}
