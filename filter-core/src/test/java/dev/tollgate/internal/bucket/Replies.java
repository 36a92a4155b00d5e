package dev.tollgate.internal.bucket;

import dev.tollgate.LimitState;
import java.util.List;

/**
 * The stores' replies in the notation these tests state their expectations in, the bucket
 * script's: per limit, buckets in order, {@code remaining, next, reset, retry-after}. The
 * stores answer with {@link BucketReply}; only the tests write the four numbers out.
 */
public final class Replies {

    private Replies() {
    }

    public static long[] flat(List<BucketReply> replies) {
        int n = 0;
        for (BucketReply r : replies) {
            n += r.limits().size();
        }
        long[] out = new long[4 * n];
        int at = 0;
        for (BucketReply r : replies) {
            for (LimitState s : r.limits()) {
                out[at++] = s.remaining();
                out[at++] = s.nextMicros();
                out[at++] = s.resetMicros();
                out[at++] = s.retryAfterMicros();
            }
        }
        return out;
    }
}
