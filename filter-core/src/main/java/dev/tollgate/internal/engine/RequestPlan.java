package dev.tollgate.internal.engine;

import dev.tollgate.Limit;
import dev.tollgate.Policy;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.identity.ClientKeys;
import java.util.Arrays;
import java.util.List;

/**
 * What a request asks of the store: one bucket per policy, in policy order, under one plan.
 *
 * <p>Immutable; thread-safe. A class rather than a record so that the store's requests are
 * listed once, when the plan is made, not again at every read.
 */
public final class RequestPlan {

    /**
     * One policy's part of a request.
     *
     * @param policy  the policy
     * @param client  the client part of its key ({@link ClientKeys#client})
     * @param request what the store is asked for that policy
     */
    public record Bucket(Policy policy, String client, BucketRequest request) {
        /** The limits counted, the policy's or its plan's. */
        public List<Limit> limits() {
            return request.limits();
        }
    }

    private final String plan;
    private final List<Bucket> buckets;
    private final List<BucketRequest> requests;
    private final String denyCacheKey;

    /**
     * @param plan         the plan the request was found to be under, or {@code null}
     * @param buckets      one per policy
     * @param denyCacheKey the request's question for the deny cache (every bucket and its cost,
     *                     see {@link DenyCache}), or {@code null} when the cache is not used
     */
    public RequestPlan(String plan, List<Bucket> buckets, String denyCacheKey) {
        this.plan = plan;
        this.buckets = List.copyOf(buckets);
        this.requests = requestsOf(this.buckets);
        this.denyCacheKey = denyCacheKey;
    }

    /** As the constructor, from the first {@code count} buckets of an array the caller gives up. */
    static RequestPlan of(String plan, Bucket[] buckets, int count, String denyCacheKey) {
        return new RequestPlan(plan, listOf(buckets, count), denyCacheKey);
    }

    private static List<BucketRequest> requestsOf(List<Bucket> buckets) {
        if (buckets.size() == 1) {
            return List.of(buckets.get(0).request()); // the common case, without an array
        }
        BucketRequest[] out = new BucketRequest[buckets.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = buckets.get(i).request();
        }
        return listOf(out, out.length);
    }

    /**
     * An immutable list of the first {@code count} elements. One or two elements (one policy, the
     * common case) make a list of their own, without the array and copies of {@code List.copyOf}.
     */
    static <T> List<T> listOf(T[] elements, int count) {
        return switch (count) {
            case 0 -> List.of();
            case 1 -> List.of(elements[0]);
            case 2 -> List.of(elements[0], elements[1]);
            default -> List.of(Arrays.copyOf(elements, count));
        };
    }

    /** The plan the request was found to be under, or {@code null}. */
    public String plan() {
        return plan;
    }

    /** One bucket per policy, in policy order. */
    public List<Bucket> buckets() {
        return buckets;
    }

    /** The request's question for the deny cache, or {@code null} when the cache is not used. */
    public String denyCacheKey() {
        return denyCacheKey;
    }

    /** The store's requests, one per bucket, in order. */
    public List<BucketRequest> requests() {
        return requests;
    }
}
