package dev.tollgate.internal.bucket;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;

/**
 * {@link BucketReply#decode} against a reference reading of the script's reply (four integers per
 * limit, buckets in order then limits in order, then the time), over calls of one to four buckets
 * of one to three limits, the one-bucket one-limit call (read without lists since issue 15)
 * among them; and a reply of any other length is refused. {@link BucketReply#decodeShort}, the
 * reply to the script's short form, against a reference in {@link BigInteger}s of what the
 * script's general path answers with n = 1, over every after from empty to full, burst and time
 * per token up to 2^52; a reply out of that shape is refused.
 */
class BucketReplyDecodeProperties {

    private static final List<Limit> LIMITS = List.of(Limit.parse("10/s burst 20").get(0),
            Limit.parse("1000/min").get(0), Limit.parse("5/h burst 7").get(0), Limit.parse("1/day").get(0));

    @Test
    void decodesAsTheReferenceReadsIt() {
        qt(500).forAll(calls(), seeds()).checkAssert(this::decodesAsTheReferenceReadsIt);
    }

    private void decodesAsTheReferenceReadsIt(List<BucketRequest> requests, long seed) {
        long[] reply = reply(requests, seed, 0);
        assertEquals(reference(requests, reply), decode(requests, reply));
    }

    @Test
    void refusesAReplyOfAnotherLength() {
        qt(200).forAll(calls(), seeds(), offsets()).checkAssert(this::refusesAReplyOfAnotherLength);
    }

    private void refusesAReplyOfAnotherLength(List<BucketRequest> requests, long seed, int offset) {
        long[] reply = reply(requests, seed, offset);
        assertThrows(IllegalStateException.class, () -> BucketReply.decode(requests, reply));
    }

    @Test
    void decodesTheShortFormAsTheGeneralPathAnswers() {
        qt(1000).forAll(shortCases()).checkAssert(this::decodesTheShortFormAsTheGeneralPathAnswers);
    }

    private void decodesTheShortFormAsTheGeneralPathAnswers(long[] c) {
        long capacity = c[0];
        long p = c[1];
        long cost = c[2];
        long full = capacity * p;
        long after = Math.min(c[3], full);
        boolean refused = c[4] != 0;
        long retry = refused ? 1 + c[5] % (full + cost * p) : 0;
        long now = c[6];
        BucketRequest.Take r = BucketRequest.take("k", List.of(new Limit(capacity, 1, p, p, "t")), cost, true);
        long[] reply = refused ? new long[] {after, retry, now} : new long[] {after, now};
        LimitState state = BucketReply.decodeShort(r, reply).get(0).limits().get(0);
        assertEquals(r.limits().get(0), state.limit());
        assertEquals(shortReference(full, p, after, retry), List.of(state.remaining(), state.nextMicros(),
                state.resetMicros(), state.retryAfterMicros()));
        assertEquals(now, BucketReply.time(reply));
    }

    @Test
    void refusesAShortReplyOutOfShape() {
        qt(200).forAll(shortCases(), badShort()).checkAssert(this::refusesAShortReplyOutOfShape);
    }

    private void refusesAShortReplyOutOfShape(long[] c, int bad) {
        long full = c[0] * c[1];
        BucketRequest.Take r = BucketRequest.take("k", List.of(new Limit(c[0], 1, c[1], c[1], "t")), c[2], true);
        long[] reply = switch (bad) {
            case 0 -> new long[] {Math.min(c[3], full)};
            case 1 -> new long[] {Math.min(c[3], full), 1, 2, c[6]};
            case 2 -> new long[] {full + 1 + c[3] % 1000, c[6]};
            case 3 -> new long[] {-1 - c[3] % 1000, c[6]};
            default -> new long[] {Math.min(c[3], full), -(c[5] % 1000), c[6]};
        };
        assertThrows(IllegalStateException.class, () -> BucketReply.decodeShort(r, reply));
    }

    /**
     * What bucket.lua's general path answers for a limit of n = 1 that owes after µs: remaining =
     * idiv(full - after, p), next = ceildiv(after - (full - (remaining + 1) * p), 1) when after > 0,
     * until full = ceildiv(after, 1), and the retry as given.
     */
    private static List<Long> shortReference(long full, long p, long after, long retry) {
        BigInteger[] qr = BigInteger.valueOf(full - after).divideAndRemainder(BigInteger.valueOf(p));
        BigInteger remaining = qr[0];
        BigInteger next = after == 0 ? BigInteger.ZERO
                : BigInteger.valueOf(after).subtract(BigInteger.valueOf(full))
                        .add(remaining.add(BigInteger.ONE).multiply(BigInteger.valueOf(p)));
        return List.of(remaining.longValueExact(), next.longValueExact(), after, retry);
    }

    /** capacity, p, cost, after, refused, retry seed, now: burst times p up to 2^52. */
    static Gen<long[]> shortCases() {
        Gen<Long> p = frequency(weight(1, of(1L, 1_000L, 100_000L, 1_000_000L, 86_400_000_000L)),
                weight(1, longs(1, 1L << 40)));
        return p.flatMap(pp -> {
            long maxCapacity = Math.max(1, (1L << 52) / pp);
            Gen<Long> capacity = longs(1, Math.min(maxCapacity, 1_000_000_000L));
            return capacity.flatMap(cap -> lists(longs(0, cap * pp), 2).flatMap(afters ->
                    lists(longs(0, Long.MAX_VALUE), 2).map(seeds -> new long[] {
                            cap, pp, Math.min(cap, 1 + seeds.get(0) % 5), afters.get(0), seeds.get(1) % 2,
                            afters.get(1), 1_700_000_000_000_000L + seeds.get(0) % 1_000_000_000_000L})));
        }).describedAs(java.util.Arrays::toString);
    }

    static Gen<Integer> badShort() {
        return ints(0, 4);
    }

    static Gen<List<BucketRequest>> calls() {
        Gen<BucketRequest> request = lists(of(LIMITS), 1, 3).map(ls -> BucketRequest.take("k", ls, 1, true));
        // a call of one bucket with one limit, the usual one, half of the time
        return frequency(weight(1, lists(request, 1, 4)),
                weight(1, of(LIMITS).map(l -> List.of(BucketRequest.take("k", List.of(l), 1, true)))));
    }

    /** Any long, as a seed of the reply's numbers. */
    static Gen<Long> seeds() {
        return SourceDSL.longs().all();
    }

    static Gen<Integer> offsets() {
        return ints(-4, 4).assuming(i -> i != 0);
    }

    /** What the script answers for these requests, numbers from {@code seed}, {@code offset} integers more or fewer. */
    private static long[] reply(List<BucketRequest> requests, long seed, int offset) {
        int limits = 0;
        for (BucketRequest r : requests) {
            limits += r.limits().size();
        }
        long[] reply = new long[Math.max(0, limits * 4 + 1 + offset)];
        java.util.Random random = new java.util.Random(seed);
        for (int i = 0; i < reply.length; i++) {
            reply[i] = random.nextLong();
        }
        return reply;
    }

    /** The reference: one flat walk over the reply, a limit's four integers at a time. */
    private static List<List<LimitState>> reference(List<BucketRequest> requests, long[] reply) {
        List<List<LimitState>> out = new ArrayList<>();
        int at = 0;
        for (BucketRequest r : requests) {
            List<LimitState> states = new ArrayList<>();
            for (Limit l : r.limits()) {
                states.add(new LimitState(l, reply[at++], reply[at++], reply[at++], reply[at++]));
            }
            out.add(states);
        }
        return out;
    }

    private static List<List<LimitState>> decode(List<BucketRequest> requests, long[] reply) {
        List<List<LimitState>> out = new ArrayList<>();
        for (BucketReply r : BucketReply.decode(requests, reply)) {
            out.add(r.limits());
        }
        return out;
    }
}
