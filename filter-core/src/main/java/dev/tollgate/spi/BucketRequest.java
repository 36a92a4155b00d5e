package dev.tollgate.spi;

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
 */
public record BucketRequest(String key, List<Limit> limits, long cost, boolean enforcing) {

    public BucketRequest {
        limits = List.copyOf(limits);
    }
}
