package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import java.util.Arrays;
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
 * state it wrote ({@link #read}), and a limit that finds none reads the latest arrival time
 * there is, never a full bucket; the states of other limits (a node of another configuration
 * wrote them) are kept and charged what this node admits ({@link #write}). Two normalisations follow from a change, the same in
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
        return debt(tat, frac, unit, now, limit.refillTokens(), limit.capacity() * limit.refillPeriodMicros());
    }

    /** {@link #debt(long, long, long, long, Limit)} for the limit of n tokens per p µs whose time to fill is {@code full}. */
    static long debt(long tat, long frac, long unit, long now, long n, long full) {
        if (frac > 0 && unit != n) {
            tat++; // counted in another unit: round up to a whole microsecond
            frac = 0;
        }
        if (tat < now) {
            return 0; // tat + frac/n < tat + 1 <= now: the bucket is full
        }
        if (tat - now > full / n) {
            return full + 1; // also keeps (tat - now) * n from overflowing after a rate change
        }
        return Math.min((tat - now) * n + frac, full + 1);
    }

    /** Longs per foreign state as {@link #read} returns them: its debt (in 1/n µs), capacity, p and n. */
    static final int FOREIGN = 4;

    /** The most foreign states a bucket keeps: those owing most. */
    static final int MOST_FOREIGN = 4;

    private static final long[] NONE = new long[0];

    /**
     * Reads a stored state ({@link TokenState}) for {@code limits} by {@code bucket.lua}'s rule ("Token bucket
     * states, and nodes of two configurations"): into {@code out} each limit's debt
     * ({@link #debt}, so {@code capacity * p + 1} beyond its time to fill), and returns the
     * foreign states to keep, {@link #FOREIGN} longs each.
     * <ul>
     * <li>limit j reads the first state not yet read that names it;</li>
     * <li>one state without a tag, and one limit: the limit's (a bucket of one limit written
     *     before tags);</li>
     * <li>otherwise the latest arrival time of all states, a partial µs rounded up, read as
     *     limit j's: a limit new to the key owes what the key owes most.</li>
     * </ul>
     * Foreign: the states that name limits not among {@code limits} and are not full, at most
     * {@link #MOST_FOREIGN}, those owing most in whole µs (of equals, the first), in their order.
     */
    static long[] read(long[] state, long now, List<Limit> limits, long[] out) {
        int k = TokenState.states(state);
        int m = limits.size();
        boolean[] used = new boolean[k];
        long latest = Long.MIN_VALUE;
        for (int j = 0; j < m; j++) {
            Limit l = limits.get(j);
            int s = -1;
            for (int i = 0; i < k && s < 0; i++) {
                if (!used[i] && TokenState.names(state, i, l)) {
                    s = i;
                }
            }
            if (s < 0 && k == 1 && m == 1 && TokenState.capacity(state, 0) == 0) {
                s = 0;
            }
            if (s >= 0) {
                used[s] = true;
                out[j] = debt(TokenState.tat(state, s), TokenState.frac(state, s), TokenState.unit(state, s), now, l);
                continue;
            }
            if (latest == Long.MIN_VALUE) {
                latest = 0;
                for (int i = 0; i < k; i++) {
                    latest = Math.max(latest, TokenState.tat(state, i) + (TokenState.frac(state, i) > 0 ? 1 : 0));
                }
            }
            out[j] = debt(latest, 0, l.refillTokens(), now, l);
        }
        long[] foreign = null;
        int f = 0;
        for (int i = 0; i < k; i++) {
            long capacity = TokenState.capacity(state, i);
            if (used[i] || capacity == 0 || namesAny(state, i, limits)) {
                continue;
            }
            long p = TokenState.period(state, i);
            long n = TokenState.unit(state, i);
            long full = capacity * p;
            long d = Math.min(full, debt(TokenState.tat(state, i), TokenState.frac(state, i), n, now, n, full));
            if (d == 0) {
                continue; // full: dropped
            }
            if (foreign == null) {
                foreign = new long[FOREIGN * k];
            }
            foreign[FOREIGN * f] = d;
            foreign[FOREIGN * f + 1] = capacity;
            foreign[FOREIGN * f + 2] = p;
            foreign[FOREIGN * f + 3] = n;
            f++;
        }
        while (f > MOST_FOREIGN) {
            int least = f - 1;
            for (int g = f - 2; g >= 0; g--) {
                if (ceilDiv(foreign[FOREIGN * g], foreign[FOREIGN * g + 3])
                        < ceilDiv(foreign[FOREIGN * least], foreign[FOREIGN * least + 3])) {
                    least = g;
                }
            }
            System.arraycopy(foreign, FOREIGN * (least + 1), foreign, FOREIGN * least, FOREIGN * (f - least - 1));
            f--;
        }
        return f == 0 ? NONE : Arrays.copyOf(foreign, FOREIGN * f);
    }

    private static boolean namesAny(long[] state, int i, List<Limit> limits) {
        for (int j = 0; j < limits.size(); j++) {
            if (TokenState.names(state, i, limits.get(j))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A new stored state: limit j owing {@code afters[j]} at {@code now}, then the foreign states
     * ({@link #read}'s), each charged {@code charge} tokens in its own terms (0 on a refused read)
     * up to its time to fill; it expires when the last of them is full.
     */
    static long[] write(long now, List<Limit> limits, long[] afters, long[] foreign, long charge) {
        int m = limits.size();
        int f = foreign.length / FOREIGN;
        long[] state = TokenState.of(m + f);
        long expires = now;
        for (int j = 0; j < m; j++) {
            Limit l = limits.get(j);
            write(state, j, now, afters[j], l.capacity(), l.refillPeriodMicros(), l.refillTokens());
            expires = Math.max(expires, now + ceilDiv(afters[j], l.refillTokens()));
        }
        for (int g = 0; g < f; g++) {
            long d = foreign[FOREIGN * g];
            long capacity = foreign[FOREIGN * g + 1];
            long p = foreign[FOREIGN * g + 2];
            long n = foreign[FOREIGN * g + 3];
            long full = capacity * p;
            d = charge <= (full - d) / p ? d + charge * p : full;
            write(state, m + g, now, d, capacity, p, n);
            expires = Math.max(expires, now + ceilDiv(d, n));
        }
        TokenState.expires(state, expires);
        return state;
    }

    /** Writes state i: the limit of n tokens per p µs up to capacity owing {@code debt} at {@code now}. */
    static void write(long[] state, int i, long now, long debt, long capacity, long p, long n) {
        TokenState.put(state, i, now + debt / n, debt % n, n, capacity, p);
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

    public static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
