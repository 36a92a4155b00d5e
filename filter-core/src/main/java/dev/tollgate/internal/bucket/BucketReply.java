package dev.tollgate.internal.bucket;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a store answers for one bucket of a request: where each of the bucket's limits stands, in
 * the order of its limits. Both stores answer with one per bucket, in request order.
 *
 * <p>The bucket script answers with a flat array ({@code bucket.lua}: four integers per limit,
 * then the decision's time); {@link #decode} is the one place that reads it, and
 * {@link #decodeShort} its answer to the short form (one limit: two or three integers).
 *
 * @param limits one state per limit of the bucket
 */
public record BucketReply(List<LimitState> limits) {

    /** The integers the script answers per limit: remaining, next, reset, retry-after. */
    private static final int PER_LIMIT = 4;

    public BucketReply {
        limits = List.copyOf(limits);
    }

    /** Whether every limit of this bucket admits the request. */
    public boolean admits() {
        for (LimitState s : limits) {
            if (!s.admits()) {
                return false;
            }
        }
        return true;
    }

    /** The longest wait among this bucket's limits; 0 when it admits. */
    public long retryAfterMicros() {
        long retry = 0;
        for (LimitState s : limits) {
            retry = Math.max(retry, s.retryAfterMicros());
        }
        return retry;
    }

    /** Whether every enforcing bucket of a request admits it (shadow buckets never refuse a request). */
    public static boolean enforcingAdmit(List<? extends BucketRequest> requests, List<BucketReply> replies) {
        for (int i = 0; i < requests.size(); i++) {
            if (requests.get(i).enforcing() && !replies.get(i).admits()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the bucket script's reply to {@code requests}: four integers per limit (remaining, µs
     * until the next token, µs until full, µs until this limit admits), buckets in order then
     * limits in order, then the decision's time ({@link #time}).
     *
     * @throws IllegalStateException when the reply does not have that shape
     */
    public static List<BucketReply> decode(List<BucketRequest> requests, long[] reply) {
        int limits = 0;
        for (int i = 0; i < requests.size(); i++) {
            limits += requests.get(i).limitCount();
        }
        if (reply == null || reply.length != limits * PER_LIMIT + 1) {
            throw new IllegalStateException("the bucket script answered " + Arrays.toString(reply) + " for "
                    + limits + " limits");
        }
        if (limits == 1 && requests.size() == 1) {
            // the usual call, one bucket with one limit: its reply without a list to fill and copy
            LimitState state = new LimitState(requests.get(0).limit(0), reply[0], reply[1], reply[2], reply[3]);
            return List.of(new BucketReply(List.of(state)));
        }
        List<BucketReply> out = new ArrayList<>(requests.size());
        int at = 0;
        for (int i = 0; i < requests.size(); i++) {
            BucketRequest r = requests.get(i); // limit by limit: a lease's or a gate's one limit makes no list
            List<LimitState> states = new ArrayList<>(r.limitCount());
            for (int k = 0; k < r.limitCount(); k++) {
                states.add(new LimitState(r.limit(k), reply[at], reply[at + 1], reply[at + 2], reply[at + 3]));
                at += PER_LIMIT;
            }
            out.add(new BucketReply(states));
        }
        return out;
    }

    /**
     * Reads the bucket script's reply to its short form ({@code bucket.lua}'s first path: one
     * token bucket of one limit whose tokens come one per {@code p} µs, sent as {@code full =
     * capacity * p} and {@code want = cost * p}): {@code after, now} when it admitted, {@code
     * debt, retry, now} when it refused, {@code after} and {@code debt} the µs until the bucket
     * is full. The rest is computed here exactly as the script's general path does with n = 1:
     * {@code remaining = floor((full - after) / p)}, the next token {@code after - full +
     * (remaining + 1) * p} µs away (0 when full).
     *
     * @throws IllegalStateException when the reply does not have that shape
     */
    public static List<BucketReply> decodeShort(BucketRequest.Take request, long[] reply) {
        Limit limit = request.limits().get(0);
        long p = limit.refillPeriodMicros();
        long full = limit.capacity() * p;
        if (reply == null || reply.length < 2 || reply.length > 3 || reply[0] < 0 || reply[0] > full
                || (reply.length == 3 && reply[1] < 1)) {
            throw new IllegalStateException("the bucket script answered " + Arrays.toString(reply)
                    + " for one limit in the short form");
        }
        long after = reply[0];
        long retry = reply.length == 3 ? reply[1] : 0;
        long remaining = (full - after) / p;
        long next = after == 0 ? 0 : after - full + (remaining + 1) * p;
        return List.of(new BucketReply(List.of(new LimitState(limit, remaining, next, after, retry))));
    }

    /** The time of the decision in a script reply, in µs of the store's clock ({@code refund.lua} needs it). */
    public static long time(long[] reply) {
        return reply[reply.length - 1];
    }
}
