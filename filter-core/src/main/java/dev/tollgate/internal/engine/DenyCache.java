package dev.tollgate.internal.engine;

import dev.tollgate.LimitState;
import dev.tollgate.PolicyResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Bounded; thread-safe.
 */
public final class DenyCache {

    private record Entry(long untilNanos, long atNanos, Object generation, List<PolicyResult> results) {
    }

    /** How often, at most, a full cache is swept for expired refusals. */
    static final long SWEEP_EVERY_NANOS = 100_000_000L;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong nextSweep;
    private final int max;
    private final LongSupplier nanoTime;

    public DenyCache(int max, LongSupplier nanoTime) {
        this.max = max;
        this.nanoTime = nanoTime;
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
        if (entries.size() >= max) {
            // A sweep walks the whole map: one thread at a time and at most every 100 ms, so a
            // flood from more refused clients than the cache holds cannot make every request pay it.
            long due = nextSweep.get();
            if (now - due < 0 || !nextSweep.compareAndSet(due, now + SWEEP_EVERY_NANOS)) {
                return; // full of live refusals: the next ones simply ask Redis
            }
            entries.values().removeIf(e -> e.untilNanos - now <= 0);
            if (entries.size() >= max) {
                return;
            }
        }
        long retryMicros = 0;
        for (PolicyResult r : refusing) {
            retryMicros = Math.max(retryMicros, r.retryAfterMicros());
        }
        entries.put(key, new Entry(now + retryMicros * 1000L, now, generation, List.copyOf(refusing)));
    }

    /**
     * The refusals still in force for this request key under this configuration, with their
     * times brought up to now (a policy whose own wait is over is left out); or {@code null}.
     */
    public List<PolicyResult> refused(String key, Object generation) {
        Entry e = entries.get(key);
        if (e == null) {
            return null;
        }
        long now = nanoTime.getAsLong();
        if (e.untilNanos - now <= 0 || e.generation != generation) {
            entries.remove(key, e);
            return null;
        }
        long elapsedMicros = (now - e.atNanos) / 1000;
        List<PolicyResult> still = new ArrayList<>(e.results.size());
        for (PolicyResult r : e.results) {
            if (r.retryAfterMicros() <= elapsedMicros) {
                continue;
            }
            List<LimitState> states = new ArrayList<>(r.limits().size());
            for (LimitState s : r.limits()) {
                states.add(new LimitState(s.limit(), s.remaining(), Math.max(0, s.nextMicros() - elapsedMicros),
                        Math.max(0, s.resetMicros() - elapsedMicros),
                        s.admits() ? 0 : Math.max(1, s.retryAfterMicros() - elapsedMicros)));
            }
            still.add(new PolicyResult(r.policy(), r.clientKey(), r.plan(), states));
        }
        return still;
    }

    /** Forgets everything, e.g. after the limits changed. */
    public void clear() {
        entries.clear();
    }

    public int size() {
        return entries.size();
    }
}
