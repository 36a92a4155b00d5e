package dev.tollgate.testing;

import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.local.LocalStore;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The one fake shared store of the unit tests, for what the engine does with Redis' answers and
 * failures: an in-memory store ({@link #inside()}) that answers, or fails the way it is told to
 * before the next call; it counts the calls that asked it for buckets ({@link #calls()}) and can
 * run something in the middle of a call ({@link #afterNextAnswer}). Tests that need real Redis
 * failing use {@code RedisFaultIT}'s real server instead.
 *
 * <p>Told from one thread, called from any: what it is told is seen by the next call.
 */
public final class FailingStore implements BucketStore {

    /** What {@link #down} stores fail with, as a refused connection does. */
    public static final String DOWN = "connection refused";

    private final LocalStore inside;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile Supplier<? extends RuntimeException> failure;
    private volatile boolean ranBeforeFailing;
    private volatile Error unexpected;
    private volatile Runnable afterNextAnswer;

    /** @param inside what answers, and what holds the shared buckets */
    public FailingStore(LocalStore inside) {
        this.inside = inside;
    }

    /** A store that is down (every call fails with {@value #DOWN}) until it {@link #answers()}. */
    public static FailingStore down(LocalStore inside) {
        FailingStore s = new FailingStore(inside);
        s.goesDown();
        return s;
    }

    public LocalStore inside() {
        return inside;
    }

    /** Calls of {@link #acquire} so far, failed ones included. */
    public int calls() {
        return calls.get();
    }

    /** The next calls answer. */
    public void answers() {
        failure = null;
        unexpected = null;
    }

    /** The next calls throw {@code failure} without reaching the buckets (a busy pool, a refused connection). */
    public void failsWith(Supplier<? extends RuntimeException> failure) {
        this.unexpected = null;
        this.ranBeforeFailing = false;
        this.failure = failure;
    }

    /** The next calls fail with {@value #DOWN}, as a Redis that is down does. */
    public void goesDown() {
        failsWith(() -> new IllegalStateException(DOWN));
    }

    /** The next calls take from the buckets, then throw {@code failure} (an answer that came too late). */
    public void runsThenFailsWith(Supplier<? extends RuntimeException> failure) {
        this.unexpected = null;
        this.ranBeforeFailing = true;
        this.failure = failure;
    }

    /**
     * The next calls throw {@code error} as it is, without reaching the buckets: not a Redis
     * failure but something unexpected, which passes the store guard.
     */
    public void throwsUnexpected(Error error) {
        this.failure = null;
        this.unexpected = error;
    }

    /** The next call that answers runs {@code during} after taking from the buckets, before it returns; once. */
    public void afterNextAnswer(Runnable during) {
        this.afterNextAnswer = during;
    }

    @Override
    public List<BucketReply> acquire(List<BucketRequest> requests) {
        calls.incrementAndGet();
        Error error = unexpected;
        if (error != null) {
            throw error;
        }
        Supplier<? extends RuntimeException> f = failure;
        if (f == null) {
            List<BucketReply> reply = inside.acquire(requests);
            Runnable during = afterNextAnswer;
            if (during != null) {
                afterNextAnswer = null;
                during.run();
            }
            return reply;
        }
        if (ranBeforeFailing) {
            inside.acquire(requests);
        }
        throw f.get();
    }

    /** Gives leases back in {@link #inside()}, unless told to fail (then nothing is given back). */
    @Override
    public void release(List<BucketRequest.Lease> leases) {
        Supplier<? extends RuntimeException> f = failure;
        if (f != null) {
            throw f.get();
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
