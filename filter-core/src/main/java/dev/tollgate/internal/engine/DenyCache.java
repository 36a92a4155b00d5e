package dev.tollgate.internal.engine;

import dev.tollgate.LimitState;
import dev.tollgate.PolicyResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Requests known to be refused: when Redis refuses a request until time T, the next requests of
 * the same shape (the same buckets, at the same costs) are refused from memory until T, without
 * asking Redis. A flood from one client then costs one Redis call per refusal window instead
 * of one per request.
 *
 * <p>Never stricter than Redis: a refusal is only reused for the same question Redis answered.
 * The caller's key names every bucket of the request and its cost, and every entry belongs to
 * the configuration ({@code generation}) under which it was decided: a lookup under another
 * configuration ignores it, even one remembered by a decision that was still running while a
 * reload cleared the cache. The key is the whole request, not each of its buckets, because the
 * store does more than refuse on a read: the first read of a bucket under new limits caps the
 * debt beyond their time to fill and stores that. A refusal remembered for one bucket and reused
 * for a request that also names a bucket Redis has not seen under these limits would skip that
 * forgiveness, and a later request would be refused where Redis would admit. Traffic from other
 * nodes can only make the client wait longer, never shorter, so a cached refusal is never wrong
 * because of it. What it cannot see is an operator deleting the key in Redis by hand.
 *
 * <p>When a refusal expires, one request (the first to find it expired) asks the store again and
 * the others of the same shape wait for its answer instead of all asking at once: a refusal it
 * brings back answers them; anything else (an admit, which each request must take for itself, or
 * a failure) sends each to ask the store itself. A waiter waits at most until the first asker's
 * time budget is spent, then asks itself; after that time the next request takes over the asking.
 * Waiters are answered only from a refusal the store gave for their question under their
 * configuration, so the cache stays exactly as strict as without the waiting.
 *
 * <p>Bounded; thread-safe; waiting blocks on a latch, never a monitor (virtual threads do not pin).
 */
public final class DenyCache {

    /** Waits for a latch at most so long; tests replace it to control time. */
    @FunctionalInterface
    public interface Await {
        /** {@code true} if {@code done} opened within {@code nanos}. */
        boolean await(CountDownLatch done, long nanos) throws InterruptedException;
    }

    private sealed interface Slot permits Entry, Flight {
    }

    private record Entry(long untilNanos, long atNanos, Object generation, List<PolicyResult> results) implements Slot {
    }

    /** A store call asking again for a key whose refusal expired; its latch opens when it is settled. */
    private record Flight(long deadlineNanos, Object generation, CountDownLatch done) implements Slot {
        Flight(long deadlineNanos, Object generation) {
            this(deadlineNanos, generation, new CountDownLatch(1));
        }
    }

    /** How often, at most, a full cache is swept for expired refusals. */
    static final long SWEEP_EVERY_NANOS = 100_000_000L;

    private final ConcurrentHashMap<String, Slot> entries = new ConcurrentHashMap<>();
    private final AtomicLong nextSweep;
    private final int max;
    private final LongSupplier nanoTime;
    private final Await await;

    public DenyCache(int max, LongSupplier nanoTime) {
        this(max, nanoTime, (done, nanos) -> done.await(nanos, TimeUnit.NANOSECONDS));
    }

    public DenyCache(int max, LongSupplier nanoTime, Await await) {
        this.max = max;
        this.nanoTime = nanoTime;
        this.await = await;
        this.nextSweep = new AtomicLong(nanoTime.getAsLong());
    }

    /**
     * Remembers a refusal of a request, for as long as Redis said: until the longest wait of the
     * policies that refused it.
     *
     * @param generation the configuration the refusal was decided under; only lookups under the
     *                   same one find it
     * @param refusing   the results of the enforced policies that refused, at least one
     */
    public void remember(String key, Object generation, List<PolicyResult> refusing) {
        long now = nanoTime.getAsLong();
        // Replacing a key's expired refusal or its asking does not grow the map.
        if (entries.size() >= max && !entries.containsKey(key)) {
            // A sweep walks the whole map: one thread at a time and at most every 100 ms, so a
            // flood from more refused clients than the cache holds cannot make every request pay it.
            long due = nextSweep.get();
            if (now - due < 0 || !nextSweep.compareAndSet(due, now + SWEEP_EVERY_NANOS)) {
                return; // full of live refusals: the next ones simply ask Redis
            }
            entries.values().removeIf(e -> expired(e, now));
            if (entries.size() >= max) {
                return;
            }
        }
        long retryMicros = 0;
        for (PolicyResult r : refusing) {
            retryMicros = Math.max(retryMicros, r.retryAfterMicros());
        }
        Slot was = entries.put(key, new Entry(now + retryMicros * 1000L, now, generation, List.copyOf(refusing)));
        if (was instanceof Flight f) {
            f.done.countDown();
        }
    }

    /**
     * The store answered this request with anything but a refusal to remember (an admit, a
     * failure): requests waiting for that answer go and ask the store themselves.
     */
    public void settled(String key) {
        if (entries.get(key) instanceof Flight f) {
            entries.remove(key, f);
            f.done.countDown();
        }
    }

    private static boolean expired(Slot s, long now) {
        boolean gone = s instanceof Entry e ? e.untilNanos - now <= 0 : ((Flight) s).deadlineNanos - now <= 0;
        if (gone && s instanceof Flight f) {
            f.done.countDown();
        }
        return gone;
    }

    /** {@link #refused(String, Object, long)} starting no asking of its own: an expired refusal is simply dropped. */
    public List<PolicyResult> refused(String key, Object generation) {
        return refused(key, generation, 0);
    }

    /**
     * The refusals still in force for this request key under this configuration, with their
     * times brought up to now (a policy whose own wait is over is left out); or {@code null}:
     * ask the store, then {@link #remember} a refusal or report {@link #settled} anything else.
     * If the refusal has just expired and another request is asking the store again, waits for
     * its answer, at most until {@code budgetNanos} after that request began to ask.
     *
     * @param budgetNanos the time budget of one store call; 0 or less: never wait
     */
    public List<PolicyResult> refused(String key, Object generation, long budgetNanos) {
        while (true) {
            Slot s = entries.get(key);
            if (s == null) {
                return null;
            }
            long now = nanoTime.getAsLong();
            if (s instanceof Flight f) {
                if (f.generation != generation) {
                    return null; // another configuration's question
                }
                if (f.deadlineNanos - now > 0) {
                    return awaitAnswer(key, f, generation, f.deadlineNanos - now);
                }
                // The asker failed to settle in its budget: this request asks in its place.
                if (entries.replace(key, f, new Flight(now + budgetNanos, generation))) {
                    f.done.countDown();
                    return null;
                }
                continue;
            }
            Entry e = (Entry) s;
            if (e.generation != generation) {
                entries.remove(key, e);
                return null;
            }
            if (e.untilNanos - now <= 0) {
                boolean replaced = budgetNanos > 0 ? entries.replace(key, e, new Flight(now + budgetNanos, generation))
                        : entries.remove(key, e);
                if (replaced) {
                    return null; // this request asks the store; the next ones of its shape wait for it
                }
                continue;
            }
            return bringUpToNow(e, now);
        }
    }

    private List<PolicyResult> awaitAnswer(String key, Flight f, Object generation, long waitNanos) {
        try {
            if (!await.await(f.done, waitNanos)) {
                return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        long now = nanoTime.getAsLong();
        if (entries.get(key) instanceof Entry e && e.generation == generation && e.untilNanos - now > 0) {
            return bringUpToNow(e, now);
        }
        return null;
    }

    /**
     * The entry's refusals as of now. Runs for every request the cache answers, so by index and
     * into lists made once ({@code List.of}), which {@link PolicyResult} and {@link dev.tollgate.Decision}
     * keep without copying them again.
     */
    private static List<PolicyResult> bringUpToNow(Entry e, long now) {
        long elapsedMicros = (now - e.atNanos) / 1000;
        List<PolicyResult> results = e.results;
        PolicyResult[] still = new PolicyResult[results.size()];
        int n = 0;
        for (int p = 0; p < results.size(); p++) {
            PolicyResult r = results.get(p);
            if (r.retryAfterMicros() <= elapsedMicros) {
                continue;
            }
            List<LimitState> limits = r.limits();
            LimitState[] states = new LimitState[limits.size()];
            for (int i = 0; i < states.length; i++) {
                LimitState s = limits.get(i);
                states[i] = new LimitState(s.limit(), s.remaining(), Math.max(0, s.nextMicros() - elapsedMicros),
                        Math.max(0, s.resetMicros() - elapsedMicros),
                        s.admits() ? 0 : Math.max(1, s.retryAfterMicros() - elapsedMicros));
            }
            still[n++] = new PolicyResult(r.policy(), r.clientKey(), r.plan(), RequestPlan.listOf(states, states.length));
        }
        return RequestPlan.listOf(still, n);
    }

    /** Forgets everything, e.g. after the limits changed; requests waiting for an answer ask the store. */
    public void clear() {
        List<Slot> was = new ArrayList<>(entries.values());
        entries.clear();
        for (Slot s : was) {
            if (s instanceof Flight f) {
                f.done.countDown();
            }
        }
    }

    public int size() {
        return entries.size();
    }
}
