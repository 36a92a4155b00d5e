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
 * @param algorithm how the bucket counts (ignored for a lease)
 * @param lease     {@code null} for a rate limit; for a concurrency limit the unique id of the lease
 *                  this request takes: the bucket holds live leases, at most its one limit's
 *                  capacity, each expiring one window (the lease) after it was taken, and the
 *                  lease is given back by {@link BucketStore#release}
 * @param gate      whether this is a pause gate ({@link #pauseGate}): it admits unless a
 *                  {@link BucketStore#pause} on its key lasts beyond now, takes nothing, and answers
 *                  one state for its one limit, which only gives that state its shape
 */
public record BucketRequest(String key, List<Limit> limits, long cost, boolean enforcing, Algorithm algorithm,
                            String lease, boolean gate) {

    public BucketRequest {
        limits = List.copyOf(limits);
        if ((lease != null || gate) && (limits.size() != 1 || cost != 1)) {
            throw new IllegalArgumentException("a lease or a gate has one limit and costs 1");
        }
        if (lease != null && gate) {
            throw new IllegalArgumentException("a lease is not a gate");
        }
    }

    /** A rate-limit or lease request. */
    public BucketRequest(String key, List<Limit> limits, long cost, boolean enforcing, Algorithm algorithm,
                         String lease) {
        this(key, limits, cost, enforcing, algorithm, lease, false);
    }

    /** A rate-limit request. */
    public BucketRequest(String key, List<Limit> limits, long cost, boolean enforcing, Algorithm algorithm) {
        this(key, limits, cost, enforcing, algorithm, null);
    }

    /** A token-bucket request. */
    public BucketRequest(String key, List<Limit> limits, long cost, boolean enforcing) {
        this(key, limits, cost, enforcing, Algorithm.TOKEN_BUCKET, null);
    }

    /** A concurrency lease {@code lease} under {@code limit} (its capacity the slots, its window the lease). */
    public static BucketRequest lease(String key, Limit limit, boolean enforcing, String lease) {
        return new BucketRequest(key, List.of(limit), 1, enforcing, Algorithm.TOKEN_BUCKET, lease);
    }

    /**
     * The pause gate at {@code key}: in the same atomic call as the buckets it guards, it refuses
     * while a pause set there lasts, with the time left as the wait, and admits otherwise.
     *
     * @param shownAs the limit its one state is reported under (the guarded bucket's first)
     */
    public static BucketRequest pauseGate(String key, Limit shownAs, boolean enforcing) {
        return new BucketRequest(key, List.of(shownAs), 1, enforcing, Algorithm.TOKEN_BUCKET, null, true);
    }

    /** Whether this is a concurrency lease rather than a rate limit. */
    public boolean isLease() {
        return lease != null;
    }
}
