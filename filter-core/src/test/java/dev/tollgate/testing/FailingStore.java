package dev.tollgate.testing;

import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.local.LocalStore;
import java.util.List;
import java.util.function.Supplier;

/**
 * The shared store for unit tests of what the engine does when Redis fails: an in-memory store
 * ({@link #inside()}) that answers, or fails the way it is told to before the next call. Tests
 * that need real Redis failing use {@code RedisFaultIT}'s real server instead.
 */
public final class FailingStore implements BucketStore {

    private final LocalStore inside;
    private Supplier<? extends RuntimeException> failure;
    private boolean ranBeforeFailing;

    /** @param inside what answers, and what holds the shared buckets */
    public FailingStore(LocalStore inside) {
        this.inside = inside;
    }

    public LocalStore inside() {
        return inside;
    }

    /** The next calls answer. */
    public void answers() {
        failure = null;
    }

    /** The next calls throw {@code failure} without reaching the buckets (a busy pool, a refused connection). */
    public void failsWith(Supplier<? extends RuntimeException> failure) {
        this.failure = failure;
        this.ranBeforeFailing = false;
    }

    /** The next calls take from the buckets, then throw {@code failure} (an answer that came too late). */
    public void runsThenFailsWith(Supplier<? extends RuntimeException> failure) {
        this.failure = failure;
        this.ranBeforeFailing = true;
    }

    @Override
    public List<BucketReply> acquire(List<BucketRequest> requests) {
        if (failure == null) {
            return inside.acquire(requests);
        }
        if (ranBeforeFailing) {
            inside.acquire(requests);
        }
        throw failure.get();
    }

    /** Gives leases back in {@link #inside()}, unless told to fail (then nothing is given back). */
    @Override
    public void release(List<BucketRequest> leases) {
        if (failure != null) {
            throw failure.get();
        }
        inside.release(leases);
    }

    @Override
    public String name() {
        return "redis (test)";
    }

    @Override
    public void close() {
    }
}
