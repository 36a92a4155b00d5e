package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;

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
 * <p>A change of limits keeps the TAT, so a client keeps the time it owes. Two normalisations
 * follow from a change, the same in {@code bucket.lua}: a remainder counted in another {@code n}
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
