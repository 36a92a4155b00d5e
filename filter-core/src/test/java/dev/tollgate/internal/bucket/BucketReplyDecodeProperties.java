package dev.tollgate.internal.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
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
 * among them; and a reply of any other length is refused.
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
