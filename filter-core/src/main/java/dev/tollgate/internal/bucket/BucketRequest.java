package dev.tollgate.internal.bucket;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import java.util.List;

/**
 * One bucket to check in an atomic call to a {@link BucketStore}.
 *
 * @param key       the storage key, already bounded and safe
 * @param limits    the limits kept in that bucket
 * @param cost      the tokens the request takes from each limit
 * @param enforcing whether a refusal here refuses the request (all-or-nothing across enforcing
 *                  buckets); a shadow bucket only takes tokens when the request passes and its
 *                  own limits admit it
 * @param algorithm how the bucket counts
 */
public record BucketRequest(String key, List<Limit> limits, long cost, boolean enforcing, Algorithm algorithm) {

    public BucketRequest {
        limits = List.copyOf(limits);
    }

    /** A token-bucket request. */
    public BucketRequest(String key, List<Limit> limits, long cost, boolean enforcing) {
        this(key, limits, cost, enforcing, Algorithm.TOKEN_BUCKET);
    }
}
