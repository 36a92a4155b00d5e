package dev.tollgate.internal.engine;

import dev.tollgate.Limit;
import dev.tollgate.Policy;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.identity.ClientKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * What a request asks of the store: one bucket per policy, in policy order, under one plan.
 *
 * @param plan         the plan the request was found to be under, or {@code null}
 * @param buckets      one per policy
 * @param denyCacheKey the request's question for the deny cache (every bucket and its cost,
 *                     see {@link DenyCache}), or {@code null} when the cache is not used
 */
public record RequestPlan(String plan, List<Bucket> buckets, String denyCacheKey) {

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

    public RequestPlan {
        buckets = List.copyOf(buckets);
    }

    /** The store's requests, one per bucket, in order. */
    public List<BucketRequest> requests() {
        List<BucketRequest> out = new ArrayList<>(buckets.size());
        for (Bucket b : buckets) {
            out.add(b.request());
        }
        return out;
    }
}
