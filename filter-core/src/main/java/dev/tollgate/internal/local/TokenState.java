package dev.tollgate.internal.local;

import dev.tollgate.Limit;
import java.util.List;

/**
 * The layout of a stored token-bucket state, the one place that knows it: a {@code long[]} of
 * {@link #FIELDS} longs per state (the arrival time in whole µs, the remainder, the n it is
 * counted in, and the limit's capacity and p, which with that n name the limit that wrote it:
 * {@code bucket.lua}'s tag), then the expiry in µs, when the last state is full again. Capacity
 * 0: a state of unknown limits (written without a tag: only {@link LocalStore#putUntagged}, for
 * tests, as {@code bucket.lua} meets it in a key written by an earlier build).
 *
 * <p>A plain {@code long[]} rather than an object, so that a stored bucket of one limit costs one
 * array of six longs; {@link Gcra} does the arithmetic on it.
 */
final class TokenState {

    /** Longs per state. */
    static final int FIELDS = 5;

    private static final int TAT = 0;
    private static final int FRAC = 1;
    private static final int UNIT = 2;
    private static final int CAPACITY = 3;
    private static final int PERIOD = 4;

    private TokenState() {
    }

    /** A new state of {@code states} states, all zero. */
    static long[] of(int states) {
        return new long[FIELDS * states + 1];
    }

    /** The number of states {@code state} holds. */
    static int states(long[] state) {
        return (state.length - 1) / FIELDS;
    }

    /** State i's arrival time, in whole µs. */
    static long tat(long[] state, int i) {
        return state[FIELDS * i + TAT];
    }

    /** State i's remainder, in [0, {@link #unit}) units of 1/n µs. */
    static long frac(long[] state, int i) {
        return state[FIELDS * i + FRAC];
    }

    /** The n state i's remainder is counted in. */
    static long unit(long[] state, int i) {
        return state[FIELDS * i + UNIT];
    }

    /** State i's limit's capacity; 0 for a state without a tag. */
    static long capacity(long[] state, int i) {
        return state[FIELDS * i + CAPACITY];
    }

    /** State i's limit's p: µs per n tokens. */
    static long period(long[] state, int i) {
        return state[FIELDS * i + PERIOD];
    }

    /** Whether state i is {@code limit}'s: its capacity, p and n. */
    static boolean names(long[] state, int i, Limit limit) {
        return capacity(state, i) == limit.capacity() && period(state, i) == limit.refillPeriodMicros()
                && unit(state, i) == limit.refillTokens();
    }

    /** Whether {@code state} holds exactly one state per limit, each the limit's own, in order. */
    static boolean holdsExactly(long[] state, List<Limit> limits) {
        if (state.length != FIELDS * limits.size() + 1) {
            return false;
        }
        for (int j = 0; j < limits.size(); j++) {
            if (!names(state, j, limits.get(j))) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code state} holds exactly one state, {@code limit}'s. */
    static boolean holdsOnly(long[] state, Limit limit) {
        return state.length == FIELDS + 1 && names(state, 0, limit);
    }

    /** Writes state i: arrival time {@code tat} µs plus {@code frac} of {@code n}, of the limit of capacity and p. */
    static void put(long[] state, int i, long tat, long frac, long n, long capacity, long p) {
        state[FIELDS * i + TAT] = tat;
        state[FIELDS * i + FRAC] = frac;
        state[FIELDS * i + UNIT] = n;
        state[FIELDS * i + CAPACITY] = capacity;
        state[FIELDS * i + PERIOD] = p;
    }

    /** When the last state is full again; from then on the state is the same as absent. */
    static long expires(long[] state) {
        return state[state.length - 1];
    }

    static void expires(long[] state, long micros) {
        state[state.length - 1] = micros;
    }
}
