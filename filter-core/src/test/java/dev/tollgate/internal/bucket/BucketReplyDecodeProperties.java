package dev.tollgate.internal.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

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

    @Property(tries = 500)
    void decodesAsTheReferenceReadsIt(@ForAll("calls") List<BucketRequest> requests, @ForAll long seed) {
        long[] reply = reply(requests, seed, 0);
        assertEquals(reference(requests, reply), decode(requests, reply));
    }

    @Property(tries = 200)
    void refusesAReplyOfAnotherLength(@ForAll("calls") List<BucketRequest> requests, @ForAll long seed,
                                      @ForAll("offsets") int offset) {
        long[] reply = reply(requests, seed, offset);
        assertThrows(IllegalStateException.class, () -> BucketReply.decode(requests, reply));
    }

    @Property(tries = 1000)
    void decodesTheShortFormAsTheGeneralPathAnswers(@ForAll("shortCases") long[] c) {
        long capacity = c[0];
        long p = c[1];
        long cost = c[2];
        long full = capacity * p;
        long after = Math.min(c[3], full);
        boolean refused = c[4] != 0;
        long retry = refused ? 1 + c[5] % (full + cost * p) : 0;
        long now = c[6];
        BucketRequest r = new BucketRequest("k", List.of(new Limit(capacity, 1, p, p, "t")), cost, true);
        long[] reply = refused ? new long[] {after, retry, now} : new long[] {after, now};
        LimitState state = BucketReply.decodeShort(r, reply).get(0).limits().get(0);
        assertEquals(r.limits().get(0), state.limit());
        assertEquals(shortReference(full, p, after, retry), List.of(state.remaining(), state.nextMicros(),
                state.resetMicros(), state.retryAfterMicros()));
        assertEquals(now, BucketReply.time(reply));
    }

    @Property(tries = 200)
    void refusesAShortReplyOutOfShape(@ForAll("shortCases") long[] c, @ForAll("badShort") int bad) {
        long full = c[0] * c[1];
        BucketRequest r = new BucketRequest("k", List.of(new Limit(c[0], 1, c[1], c[1], "t")), c[2], true);
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
    @Provide
    Arbitrary<long[]> shortCases() {
        Arbitrary<Long> p = Arbitraries.oneOf(Arbitraries.of(1L, 1_000L, 100_000L, 1_000_000L, 86_400_000_000L),
                Arbitraries.longs().between(1, 1L << 40));
        return p.flatMap(pp -> {
            long maxCapacity = Math.max(1, (1L << 52) / pp);
            Arbitrary<Long> capacity = Arbitraries.longs().between(1, Math.min(maxCapacity, 1_000_000_000L));
            return capacity.flatMap(cap -> Arbitraries.longs().between(0, cap * pp).list().ofSize(2).flatMap(afters ->
                    Arbitraries.longs().between(0, Long.MAX_VALUE).list().ofSize(2).map(seeds -> new long[] {
                            cap, pp, Math.min(cap, 1 + seeds.get(0) % 5), afters.get(0), seeds.get(1) % 2,
                            afters.get(1), 1_700_000_000_000_000L + seeds.get(0) % 1_000_000_000_000L})));
        });
    }

    @Provide
    Arbitrary<Integer> badShort() {
        return Arbitraries.integers().between(0, 4);
    }

    @Provide
    Arbitrary<List<BucketRequest>> calls() {
        Arbitrary<BucketRequest> request = Arbitraries.of(LIMITS).list().ofMinSize(1).ofMaxSize(3)
                .map(ls -> new BucketRequest("k", ls, 1, true));
        // a call of one bucket with one limit, the usual one, half of the time
        return Arbitraries.oneOf(request.list().ofMinSize(1).ofMaxSize(4),
                Arbitraries.of(LIMITS).map(l -> List.of(new BucketRequest("k", List.of(l), 1, true))));
    }

    @Provide
    Arbitrary<Integer> offsets() {
        return Arbitraries.integers().between(-4, 4).filter(i -> i != 0);
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
