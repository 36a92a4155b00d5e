package dev.tollgate.internal.bucket;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import java.util.List;
import java.util.Objects;

/**
 * One bucket to check in an atomic call to a {@link BucketStore}, of one of three kinds, each
 * with only what it has: a {@link Take} of tokens from a rate limit's bucket, a concurrency
 * {@link Lease}, and a pause {@link Gate}. A store tells them apart by kind ({@code instanceof}).
 *
 * <p>Every kind has a key, already bounded and safe, and is enforcing (a refusal here refuses
 * the request: all-or-nothing across enforcing buckets) or shadow (it only takes when the request
 * passes and its own limits admit it). It answers one state per limit, in the order of
 * {@link #limits()}.
 */
public sealed interface BucketRequest permits BucketRequest.Take, BucketRequest.Lease, BucketRequest.Gate {

    /** The storage key. */
    String key();

    /** Whether a refusal here refuses the request. */
    boolean enforcing();

    /** The limits whose states the store answers, in order (a lease's and a gate's one limit). */
    List<Limit> limits();

    /** How many limits {@link #limits()} holds, without making a list. */
    int limitCount();

    /** Limit {@code j} of {@link #limits()}, without making a list. */
    Limit limit(int j);

    /**
     * A rate-limit request: {@code cost} tokens from every limit of the bucket at {@code key},
     * counted by {@code algorithm}.
     */
    static Take take(String key, List<Limit> limits, long cost, boolean enforcing, Algorithm algorithm) {
        return new Take(key, limits, cost, enforcing, algorithm);
    }

    /** A token-bucket request. */
    static Take take(String key, List<Limit> limits, long cost, boolean enforcing) {
        return new Take(key, limits, cost, enforcing, Algorithm.TOKEN_BUCKET);
    }

    /** A concurrency lease {@code id} under {@code limit} (its capacity the slots, its window the lease). */
    static Lease lease(String key, Limit limit, boolean enforcing, String id) {
        return new Lease(key, limit, enforcing, id);
    }

    /**
     * The pause gate at {@code key}: in the same atomic call as the buckets it guards, it refuses
     * while a pause set there lasts, with the time left as the wait, and admits otherwise.
     *
     * @param shownAs the limit its one state is reported under (the guarded bucket's first)
     */
    static Gate pauseGate(String key, Limit shownAs, boolean enforcing) {
        return new Gate(key, shownAs, enforcing);
    }

    /**
     * Takes {@code cost} tokens from each of the bucket's limits.
     *
     * @param limits    the limits kept in that bucket
     * @param cost      the tokens the request takes from each limit
     * @param algorithm how the bucket counts
     */
    record Take(String key, List<Limit> limits, long cost, boolean enforcing, Algorithm algorithm)
            implements BucketRequest {

        public Take {
            limits = List.copyOf(limits);
        }

        @Override
        public int limitCount() {
            return limits.size();
        }

        @Override
        public Limit limit(int j) {
            return limits.get(j);
        }
    }

    /**
     * A concurrency lease: the bucket holds live leases, at most {@code limit}'s capacity, each
     * expiring one window (the lease) after it was taken; it is given back by
     * {@link BucketStore#release}.
     *
     * @param limit its capacity the slots, its window the lease
     * @param id    the unique id of the lease this request takes
     */
    record Lease(String key, Limit limit, boolean enforcing, String id) implements BucketRequest {

        public Lease {
            Objects.requireNonNull(id, "a lease has an id");
        }

        @Override
        public List<Limit> limits() {
            return List.of(limit);
        }

        @Override
        public int limitCount() {
            return 1;
        }

        @Override
        public Limit limit(int j) {
            Objects.checkIndex(j, 1);
            return limit;
        }
    }

    /**
     * A pause gate ({@link BucketRequest#pauseGate}): it admits unless a {@link BucketStore#pause}
     * on its key lasts beyond now, takes nothing, and answers one state.
     *
     * @param shownAs the limit its one state is reported under, which only gives that state its shape
     */
    record Gate(String key, Limit shownAs, boolean enforcing) implements BucketRequest {

        @Override
        public List<Limit> limits() {
            return List.of(shownAs);
        }

        @Override
        public int limitCount() {
            return 1;
        }

        @Override
        public Limit limit(int j) {
            Objects.checkIndex(j, 1);
            return shownAs;
        }
    }
}
