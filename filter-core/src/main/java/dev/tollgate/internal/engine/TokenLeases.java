package dev.tollgate.internal.engine;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Prefetch;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Token leasing ({@code tollgate.policy.<name>.prefetch}): this node takes k tokens of one bucket
 * from the shared store in one call (an acquire of cost k, all-or-nothing) and hands them out to
 * the requests of that bucket itself, until they run out or the hold has passed since it asked.
 * Tokens left then are dropped: they stay taken in the store, so every token a node hands out was
 * taken from the store, and at any moment a node holds at most k untaken-out tokens per bucket
 * (one lease per bucket; a lease that lost its place is not handed out). Hence, with the store's
 * own bound, the requests admitted in any interval of length t number at most
 * {@code C + ⌊r·t⌋ + nodes·k}, and at most {@code C + ⌊r·(t + hold)⌋}.
 *
 * <p>When the store cannot give k tokens, nothing is taken ({@code bucket.lua} is all-or-nothing
 * and is not changed for this): the request that asked goes to the store with its own cost, as
 * without leasing, and so does every request of that bucket on this node until the store said k
 * tokens would be there; its refusal is then the store's answer to its own question, with a
 * truthful retry time. When the store does not answer (circuit open, failure, pool busy) the
 * request is decided as while Redis fails, and the bucket is asked per request for one hold.
 *
 * <p>One request fetches a bucket's lease at a time; the others of that bucket wait for it (at
 * most the store call's time budget, then they ask themselves), so 64 threads on one key make one
 * call per k requests, not 64.
 *
 * <p>Bounded (at most {@code max} buckets; when full and nothing has expired, requests go to the
 * store); thread-safe without a lock: a compare-and-set on the lease's count on the hot path,
 * waiting on a latch, never a monitor (virtual threads do not pin).
 */
public final class TokenLeases {

    /** What {@link #take} found for a request. */
    public enum Outcome {
        /** Answered from this node's lease ({@link Take#reply()}). */
        LEASED,
        /** Ask the store for this request alone, as without leasing. */
        ASK_STORE,
        /** The store gave no verdict when asked for a lease: decide as while it fails. */
        STORE_FAILED
    }

    /**
     * @param reply for {@link Outcome#LEASED}, where the bucket's limits stand for this request; else {@code null}
     * @param fetched whether this request made the store call that fetched the lease
     */
    public record Take(Outcome outcome, BucketReply reply, boolean fetched) {
    }

    private static final Take ASK_STORE = new Take(Outcome.ASK_STORE, null, false);
    private static final Take STORE_FAILED = new Take(Outcome.STORE_FAILED, null, true);

    /** How often, at most, a full table is swept for expired entries. */
    static final long SWEEP_EVERY_NANOS = 100_000_000L;

    private sealed interface Slot permits Lease, Flight, Short {
        long untilNanos();
    }

    /** Tokens taken from the store when this node asked at {@code atNanos}, handed out until {@code untilNanos}. */
    private record Lease(Object generation, long atNanos, long untilNanos, AtomicLong tokens, BucketReply reply)
            implements Slot {

        /** Takes {@code cost} tokens; the tokens left after, or -1 when fewer than {@code cost} are there. */
        long take(long cost) {
            while (true) {
                long left = tokens.get();
                if (left < cost) {
                    return -1;
                }
                if (tokens.compareAndSet(left, left - cost)) {
                    return left - cost;
                }
            }
        }
    }

    /** A request fetching the lease; its latch opens when it is settled. */
    private record Flight(Object generation, long untilNanos, CountDownLatch done) implements Slot {
    }

    /** The store could not give a lease (or no answer): requests go to it one by one until {@code untilNanos}. */
    private record Short(Object generation, long untilNanos) implements Slot {
    }

    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    private final int max;
    private final LongSupplier nanoTime;
    private final DenyCache.Await await;
    private final AtomicLong nextSweep;
    private final LongAdder leased = new LongAdder();
    private final LongAdder fetches = new LongAdder();

    public TokenLeases(int max, LongSupplier nanoTime) {
        this(max, nanoTime, (done, nanos) -> done.await(nanos, TimeUnit.NANOSECONDS));
    }

    /** With a way to wait that tests control. */
    public TokenLeases(int max, LongSupplier nanoTime, DenyCache.Await await) {
        this.max = max;
        this.nanoTime = nanoTime;
        this.await = await;
        this.nextSweep = new AtomicLong(nanoTime.getAsLong());
    }

    /** Whether leasing may answer this request: one token-bucket rate limit of a prefetching policy, costing at most k. */
    public static boolean applies(BucketRequest.Take request, Prefetch prefetch) {
        return prefetch != null && request.cost() <= prefetch.tokens();
    }

    /**
     * Takes {@code request}'s tokens from this node's lease of its bucket, fetching a lease of
     * {@code prefetch.tokens()} with {@code fetch} (the guarded store call; {@code null}: no
     * verdict) when there is none, or waiting at most {@code budgetNanos} for the request that
     * fetches it.
     *
     * @param generation the configuration in force; a lease fetched under another is never used
     * @param request    one token-bucket request that {@link #applies}
     */
    public Take take(BucketRequest.Take request, Prefetch prefetch, Object generation, long budgetNanos,
                     Function<List<BucketRequest>, List<BucketReply>> fetch) {
        String key = request.key();
        while (true) {
            Slot s = slots.get(key);
            long now = nanoTime.getAsLong();
            boolean current = s != null && generationOf(s) == generation && s.untilNanos() - now > 0;
            if (current && s instanceof Lease l) {
                long left = l.take(request.cost());
                if (left >= 0) {
                    leased.increment();
                    return new Take(Outcome.LEASED, stateOf(l, left, now), false);
                }
                // used up: this request fetches the next one in its place
            } else if (current && s instanceof Short) {
                return ASK_STORE;
            } else if (current && s instanceof Flight f) {
                if (!awaitFlight(f, f.untilNanos - now)) {
                    return ASK_STORE; // the fetcher took its whole budget: do not wait twice
                }
                continue;
            }
            Flight mine = new Flight(generation, now + budgetNanos, new CountDownLatch(1));
            if (s == null ? !roomFor(now) || slots.putIfAbsent(key, mine) != null : !slots.replace(key, s, mine)) {
                if (s == null && slots.get(key) == null) {
                    return ASK_STORE; // full of live leases
                }
                continue;
            }
            if (s instanceof Flight stale) {
                stale.done.countDown(); // its waiters wait for this fetch instead
            }
            return fetch(request, prefetch, generation, now, mine, fetch);
        }
    }

    private Take fetch(BucketRequest.Take request, Prefetch prefetch, Object generation, long now, Flight mine,
                       Function<List<BucketRequest>, List<BucketReply>> fetch) {
        Slot next = null;
        try {
            BucketRequest all = BucketRequest.take(request.key(), request.limits(), prefetch.tokens(), request.enforcing(),
                    request.algorithm());
            List<BucketReply> replies;
            try {
                replies = fetch.apply(List.of(all));
            } catch (RuntimeException e) {
                replies = null;
            }
            fetches.increment();
            if (replies == null) {
                next = new Short(generation, now + prefetch.holdNanos());
                return STORE_FAILED;
            }
            BucketReply reply = replies.get(0);
            if (!reply.admits()) {
                // Until k tokens would be there, asking for them again would only cost a call.
                next = new Short(generation, now + Math.max(1, reply.retryAfterMicros()) * 1000L);
                return new Take(Outcome.ASK_STORE, null, true);
            }
            long left = prefetch.tokens() - request.cost();
            // The hold runs from before the call, so the last token goes out within hold of the store's decision.
            Lease lease = new Lease(generation, now, now + prefetch.holdNanos(), new AtomicLong(left), reply);
            next = lease;
            return new Take(Outcome.LEASED, stateOf(lease, left, now), true);
        } finally {
            // A fetch that lost its place (a waiter took over after the budget) hands nothing out.
            if (next == null || !slots.replace(request.key(), mine, next)) {
                slots.remove(request.key(), mine);
            }
            mine.done.countDown();
        }
    }

    private boolean awaitFlight(Flight f, long waitNanos) {
        try {
            return await.await(f.done, waitNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Room for one more bucket: under the limit, or after a sweep of what has expired (one thread, every 100 ms at most). */
    private boolean roomFor(long now) {
        if (slots.size() < max) {
            return true;
        }
        long due = nextSweep.get();
        if (now - due < 0 || !nextSweep.compareAndSet(due, now + SWEEP_EVERY_NANOS)) {
            return false;
        }
        slots.values().removeIf(s -> !(s instanceof Flight) && s.untilNanos() - now <= 0);
        return slots.size() < max;
    }

    private static Object generationOf(Slot s) {
        if (s instanceof Lease l) {
            return l.generation;
        }
        return s instanceof Flight f ? f.generation : ((Short) s).generation;
    }

    /**
     * Where the limits stand for a leased request, as far as this node knows: the store's figures
     * at the fetch brought forward by the time since, plus the tokens this node still holds.
     */
    private static BucketReply stateOf(Lease lease, long left, long now) {
        long elapsedMicros = (now - lease.atNanos) / 1000;
        List<LimitState> at = lease.reply.limits();
        List<LimitState> states = new ArrayList<>(at.size());
        for (LimitState s : at) {
            Limit limit = s.limit();
            states.add(new LimitState(limit, Math.min(limit.capacity(), s.remaining() + left),
                    Math.max(0, s.nextMicros() - elapsedMicros), Math.max(0, s.resetMicros() - elapsedMicros), 0));
        }
        return new BucketReply(states);
    }

    /** Forgets every lease (the configuration changed); their tokens stay taken. */
    public void clear() {
        List<Slot> was = new ArrayList<>(slots.values());
        slots.clear();
        for (Slot s : was) {
            if (s instanceof Flight f) {
                f.done.countDown();
            }
        }
    }

    /** Requests answered from a lease, without a store call of their own. */
    public long leased() {
        return leased.sum();
    }

    /** Store calls made to fetch a lease (admitted, refused or failed). */
    public long fetches() {
        return fetches.sum();
    }

    public int size() {
        return slots.size();
    }
}
