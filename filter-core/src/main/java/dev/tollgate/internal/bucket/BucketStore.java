package dev.tollgate.internal.bucket;

import java.util.List;

/**
 * Keeps token buckets and decides, atomically, whether a request may take its tokens.
 *
 * <p>Not an extension point (it left {@code dev.tollgate.spi}: nothing public accepted a store):
 * {@code RedisStore} and {@code LocalStore} are the two, held to one meaning by the test
 * {@code BucketStoreContract}. Implementations must be thread-safe.
 */
public interface BucketStore extends AutoCloseable {

    /**
     * Checks every limit of every bucket in one atomic step. If every limit of every enforcing
     * bucket admits the request, the enforcing buckets take their tokens, and each shadow bucket
     * whose own limits admit it takes its tokens too. Otherwise nothing is taken from anything
     * (all-or-nothing).
     *
     * @return one reply per request, in request order: where each of its limits stands
     * @throws RuntimeException when the store cannot answer (Redis down, timeout)
     */
    List<BucketReply> acquire(List<BucketRequest> requests);

    /**
     * Gives back concurrency leases that {@link #acquire} took ({@link BucketRequest.Lease}); a
     * lease already given back or expired is ignored, so giving one back twice frees one slot.
     *
     * @throws RuntimeException when the store cannot answer (the lease then expires on its own)
     */
    default void release(List<BucketRequest.Lease> leases) {
        throw new UnsupportedOperationException(name() + " keeps no concurrency leases");
    }

    /**
     * Pauses the gate at {@code gateKey} ({@link BucketRequest#pauseGate}): no request that holds
     * it is admitted for {@code pauseMicros} from now on the store's clock. A pause never
     * shortens one already set: the later end wins. The pause is given as a duration, so the
     * store's own clock (Redis {@code TIME}) places it.
     *
     * @param pauseMicros at least 0
     * @return µs from now until the gate opens again, after this call
     * @throws RuntimeException when the store cannot answer
     */
    default long pause(String gateKey, long pauseMicros) {
        throw new UnsupportedOperationException(name() + " keeps no pauses");
    }

    /**
     * For an operator ({@code inspect}): per key of one client (all on one Cluster slot), whether
     * it exists, its live concurrency leases (a lease key's), and µs until it expires (-1 never,
     * -2 absent); then the store's now in µs. Never on a request's path.
     *
     * @throws UnsupportedOperationException where other processes cannot see the keys (memory)
     */
    default long[] describe(List<String> clientKeys) {
        throw new UnsupportedOperationException("the " + name() + " store is this node's memory: nothing to inspect from outside");
    }

    /**
     * For an operator ({@code reset}): deletes keys of one client, so that its buckets are full,
     * its quotas unused and its leases and pauses gone. Never on a request's path.
     *
     * @return how many of the keys existed
     * @throws UnsupportedOperationException where other processes cannot see the keys (memory)
     */
    default long delete(List<String> clientKeys) {
        throw new UnsupportedOperationException("the " + name() + " store is this node's memory: nothing to reset from outside");
    }

    /** A short name for logs: {@code redis} or {@code local}. */
    String name();

    @Override
    void close();
}
