package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import java.util.List;

/**
 * The bucket arithmetic, in exact integers. {@code bucket.lua} does the same steps in the same
 * order; the contract tests run both against one another's expectations.
 *
 * <p>A bucket is stored as a theoretical arrival time (TAT, the generic cell rate algorithm):
 * the moment at which it would be full again. For a limit that refills {@code n} tokens every
 * {@code p} µs, time is counted in units of {@code 1/n} µs so that one token is exactly
 * {@code p} units; the TAT is kept as whole microseconds {@code tat} plus a remainder
 * {@code frac} in {@code [0, n)}, together with the {@code n} it was counted in. The "debt"
 * {@code d = (TAT - now)} in those units, at least 0, is what the bucket lacks to be full:
 * {@code tokens = (capacity * p - d) / p}.
 *
 * <p>A change of limits keeps the TAT, so a client keeps the time it owes: each limit finds the
 * state it wrote ({@link #debts}), and a limit that finds none reads the latest arrival time
 * there is, never a full bucket. Two normalisations follow from a change, the same in
 * {@code bucket.lua}: a remainder counted in another {@code n}
 * (the rate changed) is rounded up to the next whole microsecond, never in the client's favour;
 * and a debt beyond the time to fill (the burst shrank) is capped, and the capped state must be
 * stored even when the request is refused, or every refusal would announce a retry time that the
 * next read, capping again from the old TAT, does not honour.
 */
public final class Gcra {

    private Gcra() {
    }

    /**
     * The debt of a stored state at {@code now}, in units of 1/n µs, or {@code capacity * p + 1}
     * when it exceeds the time to fill (the caller caps it and stores the capped state).
     *
     * @param unit the {@code n} the remainder {@code frac} was counted in
     */
    static long debt(long tat, long frac, long unit, long now, Limit limit) {
        long n = limit.refillTokens();
        if (frac > 0 && unit != n) {
            tat++; // counted in another unit: round up to a whole microsecond
            frac = 0;
        }
        if (tat < now) {
            return 0; // tat + frac/n < tat + 1 <= now: the bucket is full
        }
        long full = limit.capacity() * limit.refillPeriodMicros();
        if (tat - now > full / n) {
            return full + 1; // also keeps (tat - now) * n from overflowing after a rate change
        }
        return Math.min((tat - now) * n + frac, full + 1);
    }

    /**
     * Longs per limit in a stored token-bucket state ({@code long[]}, the expiry after them): the
     * arrival time in whole µs, the remainder, the n it is counted in, and the tag: the time to
     * fill ({@code capacity * p}, in 1/n µs) of the limit that wrote it, which with that n names
     * the limit; 0 (no tag) in a state of one limit, as {@code bucket.lua} tags only states of
     * several.
     */
    static final int FIELDS = 4;

    /** The number of limits a stored state holds. */
    static int limitsIn(long[] state) {
        return (state.length - 1) / FIELDS;
    }

    /**
     * The debt of each limit ({@link #debt}, so {@code capacity * p + 1} beyond its time to fill)
     * read from a stored state of any shape, by {@code bucket.lua}'s rule ("Several limits"):
     * <ul>
     * <li>tagged states: limit j's own is the first not yet used whose tag is j's;</li>
     * <li>untagged states as many as the limits: by position;</li>
     * <li>otherwise (no state of its own, or untagged states of another number): the latest
     *     arrival time of all states, a partial µs rounded up, read as limit j's.</li>
     * </ul>
     */
    static void debts(long[] state, long now, List<Limit> limits, long[] out) {
        int k = limitsIn(state);
        int m = limits.size();
        boolean tagged = false;
        for (int i = 0; i < k; i++) {
            tagged |= state[FIELDS * i + 3] != 0;
        }
        boolean[] used = tagged ? new boolean[k] : null;
        long latest = Long.MIN_VALUE;
        for (int j = 0; j < m; j++) {
            Limit l = limits.get(j);
            int s = -1;
            if (tagged) {
                long full = l.capacity() * l.refillPeriodMicros();
                for (int i = 0; i < k && s < 0; i++) {
                    if (!used[i] && state[FIELDS * i + 3] == full && state[FIELDS * i + 2] == l.refillTokens()) {
                        s = i;
                        used[i] = true;
                    }
                }
            } else if (k == m) {
                s = j;
            }
            if (s >= 0) {
                out[j] = debt(state[FIELDS * s], state[FIELDS * s + 1], state[FIELDS * s + 2], now, l);
                continue;
            }
            if (latest == Long.MIN_VALUE) {
                latest = 0;
                for (int i = 0; i < k; i++) {
                    latest = Math.max(latest, state[FIELDS * i] + (state[FIELDS * i + 1] > 0 ? 1 : 0));
                }
            }
            out[j] = debt(latest, 0, l.refillTokens(), now, l);
        }
    }

    /** Writes limit j's state for a debt taken at {@code now}; tagged when the state is of several limits. */
    static void write(long[] state, int j, long now, long debt, Limit limit, boolean tagged) {
        state[FIELDS * j] = tatMicros(now, debt, limit);
        state[FIELDS * j + 1] = tatFrac(debt, limit);
        state[FIELDS * j + 2] = limit.refillTokens();
        state[FIELDS * j + 3] = tagged ? limit.capacity() * limit.refillPeriodMicros() : 0;
    }

    /** Where one limit stands after a decision that leaves the debt {@code debtAfter}, for a request that wanted {@code wanted}. */
    static LimitState answer(Limit limit, long debtAfter, long wanted) {
        long p = limit.refillPeriodMicros();
        long n = limit.refillTokens();
        long cap = limit.capacity() * p;
        long remaining = (cap - debtAfter) / p;
        long next = 0;
        if (debtAfter > 0) {
            long target = cap - (remaining + 1) * p;
            next = ceilDiv(debtAfter - target, n);
        }
        return new LimitState(limit, remaining, next, ceilDiv(debtAfter, n), wanted > cap ? ceilDiv(wanted - cap, n) : 0);
    }

    /** The stored TAT, whole microseconds, for a debt taken at {@code now}. */
    static long tatMicros(long now, long debt, Limit limit) {
        return now + debt / limit.refillTokens();
    }

    /** The stored remainder in 1/n µs, for a debt taken at {@code now}. */
    static long tatFrac(long debt, Limit limit) {
        return debt % limit.refillTokens();
    }

    public static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
