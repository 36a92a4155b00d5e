package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The two forms of {@code bucket.lua}'s arguments (issue 15): the short form serves exactly the
 * lone one-limit token bucket of n = 1 whose cost is at most its capacity, and the script can tell the forms
 * apart by their length (short: three, or four with the test's time; general: at least nine), so
 * a general call is never taken for the short path; the short form's third argument is the
 * limit's tag, as the script writes it. And the one piece of arithmetic the short
 * path leans on without a correction: for an integer x below 2^53, x / 1000 in doubles never
 * rounds up to the next integer, so {@code x - x % 1000} is the exact multiple below.
 */
class ScriptFormsProperties {

    private static final List<String> LIMITS = List.of("10/s burst 20", "100/min", "1/day", "3/s", "0.5/s",
            "7/5min burst 9", "1/ms burst 1000000000", "1000/month calendar");

    @Test
    void theShortFormServesTheLoneBucketOfNOne() {
        qt(500).forAll(requests()).checkAssert(this::theShortFormServesTheLoneBucketOfNOne);
    }

    private void theShortFormServesTheLoneBucketOfNOne(BucketRequest r) {
        List<String> shortForm = RedisStore.shortArguments(r);
        List<String> general = RedisStore.bucketArguments(r, 1_700_000_000_000_000L);
        assertTrue(2 + general.size() >= 9, "the general form is never as short as five: " + general);
        Limit first = r.limits().get(0);
        boolean serves = r instanceof BucketRequest.Take t && t.algorithm() == Algorithm.TOKEN_BUCKET
                && t.limits().size() == 1 && !first.isCalendar() && first.refillTokens() == 1 && t.cost() >= 0
                && t.cost() <= first.capacity();
        if (!serves) {
            assertNull(shortForm);
            return;
        }
        long cost = ((BucketRequest.Take) r).cost();
        assertEquals(List.of(Long.toString(first.capacity() * first.refillPeriodMicros()),
                Long.toString(cost * first.refillPeriodMicros()),
                "~" + letters(first.capacity()) + "." + letters(first.refillPeriodMicros()) + ".b"), shortForm);
    }

    /** A whole number in base 26, written from its definition: digit k is 'a' + (x / 26^k) mod 26. */
    static String letters(long x) {
        java.math.BigInteger v = java.math.BigInteger.valueOf(x);
        java.math.BigInteger b = java.math.BigInteger.valueOf(26);
        String s = "";
        do {
            s = (char) ('a' + v.mod(b).intValue()) + s;
            v = v.divide(b);
        } while (v.signum() > 0);
        return s;
    }

    @Test
    void aThousandthNeverRoundsUpToTheNextInteger() {
        qt(2000).forAll(longs(0, (1L << 53) - 1), longs(0, 999)).checkAssert(this::aThousandthNeverRoundsUpToTheNextInteger);
    }

    private void aThousandthNeverRoundsUpToTheNextInteger(long x, long below) {
        for (long v : new long[] {x, Math.max(0, x - x % 1000 - 1 - below), (1L << 53) - 1 - below}) {
            double d = v;
            double mod = d - Math.floor(d / 1000) * 1000; // Lua 5.1's luai_nummod
            assertEquals(v - v % 1000, (long) (d - mod), "x - x % 1000 for " + v);
            assertEquals(v / 1000, (long) ((d - mod) / 1000), "the quotient for " + v);
        }
    }

    static Gen<BucketRequest> requests() {
        Gen<List<Limit>> limits = lists(of(LIMITS).map(t -> Limit.parse(t).get(0)), 1, 3);
        Gen<Long> cost = frequency(weight(1, longs(0, 50)), weight(1, longs(1, Integer.MAX_VALUE)));
        Gen<BucketRequest> rate = limits.zip(cost, bools(),
                of(Algorithm.TOKEN_BUCKET, Algorithm.TOKEN_BUCKET, Algorithm.SLIDING_LOG, Algorithm.CALENDAR),
                (ls, c, enforcing, a) -> BucketRequest.take("k", a == Algorithm.CALENDAR
                        ? List.of(Limit.parse("1000/month calendar").get(0)) : ls, c, enforcing, a));
        Gen<BucketRequest> lease = of(LIMITS).map(t -> BucketRequest.lease("k", Limit.parse(t).get(0), true, "id"));
        Gen<BucketRequest> gate = of(LIMITS).map(t -> BucketRequest.pauseGate("k", Limit.parse(t).get(0), true));
        return frequency(weight(8, rate), weight(1, lease), weight(1, gate));
    }
}
