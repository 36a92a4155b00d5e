package dev.tollgate.internal;

import dev.tollgate.LimitState;
import dev.tollgate.PolicyResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Clients known to be refused: when Redis refuses a client under a policy until time T, the
 * next requests of that client under that policy are refused from memory until T, without
 * asking Redis. A flood from one client then costs one Redis call per refusal window instead
 * of one per request.
 *
 * <p>Never stricter than Redis: a refusal is only reused for the same question Redis answered.
 * The caller's key names the bucket, the cost and the limit set (the plan) it asked about, and
 * every entry belongs to the configuration ({@code generation}) under which it was decided: a
 * lookup under another configuration ignores it, even one remembered by a decision that was
 * still running while a reload cleared the cache. Traffic from other nodes can only make the
 * client wait longer, never shorter, so a cached refusal is never wrong because of it. What it
 * cannot see is an operator deleting the key in Redis by hand.
 *
 * <p>Bounded; thread-safe.
 */
public final class DenyCache {

    private record Entry(long untilNanos, long atNanos, Object generation, PolicyResult result) {
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
     * Remembers a refusal by a policy of a client, for as long as Redis said.
     *
     * @param generation the configuration the refusal was decided under; only lookups under the
     *                   same one find it
     */
    public void remember(String key, Object generation, PolicyResult result) {
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
        entries.put(key, new Entry(now + result.retryAfterMicros() * 1000L, now, generation, result));
    }

    /**
     * The refusal still in force for this bucket key under this configuration, with its times
     * brought up to now; or {@code null}.
     */
    public PolicyResult refused(String key, Object generation) {
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
        List<LimitState> states = new ArrayList<>(e.result.limits().size());
        for (LimitState s : e.result.limits()) {
            states.add(new LimitState(s.limit(), s.remaining(), Math.max(0, s.nextMicros() - elapsedMicros),
                    Math.max(0, s.resetMicros() - elapsedMicros),
                    s.admits() ? 0 : Math.max(1, s.retryAfterMicros() - elapsedMicros)));
        }
        return new PolicyResult(e.result.policy(), e.result.clientKey(), e.result.plan(), states);
    }

    /** Forgets everything, e.g. after the limits changed. */
    public void clear() {
        entries.clear();
    }

    public int size() {
        return entries.size();
    }
}
