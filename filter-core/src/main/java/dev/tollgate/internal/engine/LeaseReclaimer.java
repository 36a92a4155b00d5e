package dev.tollgate.internal.engine;

import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Concurrency slots that Redis may hold for nobody: a call that took a lease and whose reply was
 * lost (a timeout after {@code bucket.lua} ran, a dropped reply, a budget spent, keys split by a
 * migration), and a release that failed. The request went on by the failure mode with a slot of its
 * own, or has ended; left alone, the lease would lock the client out until it expires (60 s by
 * default: with {@code concurrency=1}, one 300 ms hiccup refused the client for a minute). Each is
 * given back ({@link BucketStore#release}, which ignores a lease that is not there, so a call that
 * never ran costs nothing) as soon as Redis answers a call again, off the request path, until its
 * lease would have ended anyway. At most {@value #MAX} are kept: past that, the oldest are left to
 * expire. Thread-safe.
 */
final class LeaseReclaimer {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.redis");
    static final int MAX = 10_000;

    private record Orphan(BucketRequest.Lease lease, long untilNanos) {
    }

    private final BucketStore store;
    private final LongSupplier nanoTime;
    private final Executor executor;
    private final ConcurrentLinkedQueue<Orphan> orphans = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();

    LeaseReclaimer(BucketStore store, LongSupplier nanoTime, Executor executor) {
        this.store = store;
        this.nanoTime = nanoTime;
        this.executor = executor;
    }

    /** Keeps the leases among {@code requests} to give back later; the others took no slot. */
    void add(List<? extends BucketRequest> requests) {
        long now = nanoTime.getAsLong();
        for (BucketRequest r : requests) {
            if (r instanceof BucketRequest.Lease lease) {
                orphans.add(new Orphan(lease, now + lease.limit().windowMicros() * 1000));
                if (size.incrementAndGet() > MAX && orphans.poll() != null) {
                    size.decrementAndGet();
                }
            }
        }
    }

    /** Gives {@code held} back now; if Redis does not answer, keeps them for later. */
    void release(List<BucketRequest.Lease> held) {
        try {
            store.release(held);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "slots not given back; given back when Redis answers again", e);
            add(held);
        }
    }

    /** Redis answered a call: gives back what is kept, off the caller's thread. Cheap when nothing is. */
    void redisAnswered() {
        if (size.get() > 0 && draining.compareAndSet(false, true)) {
            try {
                executor.execute(this::drain);
            } catch (RuntimeException e) {
                draining.set(false); // closed, or refused: the leases expire on their own
            }
        }
    }

    private void drain() {
        try {
            long now = nanoTime.getAsLong();
            List<BucketRequest.Lease> batch = new ArrayList<>();
            Orphan o;
            while ((o = orphans.poll()) != null) {
                size.decrementAndGet();
                if (o.untilNanos() - now > 0) {
                    batch.add(o.lease());
                }
            }
            if (!batch.isEmpty()) {
                try {
                    store.release(batch);
                } catch (RuntimeException e) {
                    LOG.log(Level.FINE, "slots not given back; given back when Redis answers again", e);
                    for (BucketRequest.Lease r : batch) {
                        orphans.add(new Orphan(r, now + r.limit().windowMicros() * 1000));
                        size.incrementAndGet();
                    }
                }
            }
        } finally {
            draining.set(false);
        }
    }

    /** How many leases wait to be given back (for tests). */
    int waiting() {
        return size.get();
    }
}
