package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;

/**
 * The in-memory state of one client's calendar quotas under one policy, as {@code bucket.lua}
 * keeps it in a string: per limit the window it counted in (start and end) and the cost taken in
 * it. Read as the script reads it ({@link #read}): a limit's own window counts, a window of
 * another zone or unit that overlaps it counts too, an earlier window counts nothing.
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
     * whose window at {@code now} is {@code [windows[2j], windows[2j + 1])}, counts the first
     * state not claimed yet of that very window; a limit that finds none counts the largest count
     * of the states whose windows overlap its own, leaving out those other limits claimed (in
     * a quota of a day and an hour, the hour's next window overlaps the day's count) unless the
     * state holds fewer limits than these (then a limit is new). {@code holds[j]} is when
     * what it counts stops counting if nothing is written: its window's end, or for a count of
     * other windows the end of the latest window stored (the state is absent from then on).
     *
     * @param quota the stored state, or {@code null}
     */
    static void read(CalendarQuota quota, long[] windows, long now, long[] used, long[] holds) {
        int m = used.length;
        int k = quota == null ? 0 : quota.counts.length;
        boolean[] claimed = new boolean[k];
        int[] own = new int[m];
        for (int j = 0; j < m; j++) {
            own[j] = -1;
            for (int s = 0; s < k && own[j] < 0; s++) {
                if (!claimed[s] && quota.startMicros[s] == windows[2 * j] && quota.endMicros[s] == windows[2 * j + 1]) {
                    claimed[s] = true;
                    own[j] = s;
                }
            }
        }
        for (int j = 0; j < m; j++) {
            long start = windows[2 * j];
            long end = windows[2 * j + 1];
            holds[j] = end;
            if (own[j] >= 0) {
                used[j] = quota.counts[own[j]];
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
