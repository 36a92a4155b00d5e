package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import java.util.List;

/**
 * The in-memory state of one client's calendar quotas under one policy, as {@code bucket.lua}
 * keeps it in a string: per limit the window it counted in (start and end) and the cost taken in
 * it, then the states of windows of other zones or units that have not ended. Read as the script
 * reads it ({@link #read}): a limit's own window counts, a window of another zone or unit that
 * overlaps it counts too, an earlier window counts nothing; written as the script writes it
 * ({@link #written}): the windows of other zones or units are kept, and charged what is taken.
 *
 * <p>Not thread-safe: {@link LocalStore} guards it with its stripe lock; it is replaced, never
 * changed, once stored.
 */
final class CalendarQuota {

    private final long[] startMicros;
    private final long[] counts;
    private final long[] endMicros;
    /** When the last of its windows ends; then it is the same as absent. */
    final long expiresMicros;

    CalendarQuota(long[] startMicros, long[] counts, long[] endMicros, long expiresMicros) {
        this.startMicros = startMicros;
        this.counts = counts;
        this.endMicros = endMicros;
        this.expiresMicros = expiresMicros;
    }

    /**
     * What each limit has taken, as {@code bucket.lua} reads it ("Calendar quotas"): limit j,
     * whose window now is {@code [starts[j], ends[j])}, counts the first
     * state not claimed yet of that very window; a limit that finds none counts the largest count
     * of the states whose windows overlap its own, leaving out those other limits claimed (in
     * a quota of a day and an hour, the hour's next window overlaps the day's count) unless the
     * state holds fewer limits than these (then a limit is new). {@code holds[j]} is when
     * what it counts stops counting if nothing is written: its window's end (or, when states of
     * other windows outlast it whose counts would refuse {@code cost} under limit j's capacity
     * in the next window, the latest of their ends), or for a count of other windows the end of
     * the latest window stored (the state is absent from then on).
     *
     * @param quota the stored state, or {@code null}
     * @return which stored states the limits claimed as their own (for {@link #written})
     */
    static boolean[] read(CalendarQuota quota, long[] starts, long[] ends, List<Limit> limits, long cost, long[] used,
                          long[] holds) {
        int m = used.length;
        int k = quota == null ? 0 : quota.counts.length;
        boolean[] claimed = new boolean[k];
        int[] own = new int[m];
        for (int j = 0; j < m; j++) {
            own[j] = -1;
            for (int s = 0; s < k && own[j] < 0; s++) {
                if (!claimed[s] && quota.startMicros[s] == starts[j] && quota.endMicros[s] == ends[j]) {
                    claimed[s] = true;
                    own[j] = s;
                }
            }
        }
        for (int j = 0; j < m; j++) {
            long start = starts[j];
            long end = ends[j];
            long capacity = limits.get(j).capacity();
            holds[j] = end;
            if (own[j] >= 0) {
                used[j] = quota.counts[own[j]];
                // states of other windows that outlast this one and would refuse in the next: until the last ends
                for (int s = 0; s < k; s++) {
                    if ((!claimed[s] || k < m) && quota.endMicros[s] > holds[j] && quota.counts[s] + cost > capacity) {
                        holds[j] = quota.endMicros[s];
                    }
                }
                continue;
            }
            long n = 0;
            for (int s = 0; s < k; s++) {
                if ((!claimed[s] || k < m) && quota.startMicros[s] < end && quota.endMicros[s] > start) {
                    n = Math.max(n, quota.counts[s]);
                }
            }
            used[j] = n;
            if (n > 0) {
                holds[j] = quota.expiresMicros;
            }
        }
        return claimed;
    }

    /**
     * The state a call that took {@code cost} writes: its limits' windows and counts, then the
     * states of {@code read} that no limit claimed and whose windows have not ended at
     * {@code now} (a node of another zone or unit counts in them), each charged the cost, as
     * {@code bucket.lua} writes them. It expires when the last of its windows ends.
     */
    static CalendarQuota written(CalendarQuota read, boolean[] claimed, long[] starts, long[] counts, long[] ends, long cost,
                                 long now) {
        int m = counts.length;
        int f = 0;
        for (int s = 0; read != null && s < read.counts.length; s++) {
            if (!claimed[s] && read.endMicros[s] > now) {
                f++;
            }
        }
        long[] st = java.util.Arrays.copyOf(starts, m + f);
        long[] co = java.util.Arrays.copyOf(counts, m + f);
        long[] en = java.util.Arrays.copyOf(ends, m + f);
        long expires = now;
        for (long e : ends) {
            expires = Math.max(expires, e);
        }
        for (int s = 0, g = m; read != null && s < read.counts.length; s++) {
            if (!claimed[s] && read.endMicros[s] > now) {
                st[g] = read.startMicros[s];
                co[g] = read.counts[s] + cost;
                en[g] = read.endMicros[s];
                expires = Math.max(expires, en[g]);
                g++;
            }
        }
        return new CalendarQuota(st, co, en, expires);
    }

    /**
     * Where one calendar limit stands, as {@code bucket.lua} answers it: {@code after} is what
     * its window holds after the decision, {@code wanted} what it held before plus the cost.
     * Until {@code endMicros} (the window's end; when nothing was written and the count came
     * from other windows, the end of the latest stored) one more becomes free, the quota is full
     * and a refused request can pass; never said as less than 1 µs.
     */
    static LimitState answer(Limit limit, long nowMicros, long endMicros, long after, long wanted) {
        long left = Math.max(1, endMicros - nowMicros);
        long next = after > 0 ? left : 0;
        return new LimitState(limit, Math.max(0, limit.capacity() - after), next, next,
                wanted > limit.capacity() ? left : 0);
    }
}
