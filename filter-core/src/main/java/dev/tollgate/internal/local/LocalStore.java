package dev.tollgate.internal.local;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import java.util.ArrayList;
import java.util.List;

/**
 * Token buckets in this JVM's memory, with the same meaning as the Redis store: for one server,
 * and as the fallback while Redis fails.
 *
 * <p>Bounded in bytes. It holds at most {@code maxKeys} keys; each costs its map entry, its key
 * and its state: about 150 bytes plus the key's length plus 40 bytes per limit (and per state of
 * another configuration's limit it keeps, at most four). Sliding logs also
 * hold their entries, in slots of 8 bytes that grow with use ({@link SlidingLog}); all logs
 * together hold at most {@link #logSlotBudget(int)} slots, {@code 16 x maxKeys} but never less
 * than one full log of {@value Algorithm#MAX_LOG_ENTRIES} per lock stripe: 12.8 MB at the
 * default 100,000 keys. Beyond either bound the least recently used key (for the slot budget,
 * the least recently used log) is forgotten, which gives that client a full bucket again. A
 * flood therefore costs a bounded amount of memory and, at worst, lets the forgotten clients
 * start over. A bucket that is full again is the same as an absent one. Concurrency leases
 * ({@link Leases}) are one key per client and policy, holding at most the policy's slots; a key
 * holding live leases is never forgotten this way (that would give its client its slots back), so
 * beyond {@code maxKeys} the store also holds one key per client with requests in flight.
 *
 * <p>Thread-safe: the keys are spread over lock stripes; one call locks the stripes of its keys
 * in a fixed order, so calls over several keys are atomic and cannot deadlock.
 *
 * <p>The in-memory twin of {@code bucket.lua}. This class locks and orders: a call locks the
 * stripes of its keys, checks every bucket, commits every bucket, and unlocks. Each kind of bucket
 * checks and commits itself ({@link BucketCheck}: pause gate, lease, token bucket, sliding log,
 * calendar quota) with the arithmetic of {@link Gcra}, {@link SlidingLog} and
 * {@link CalendarQuota}; a {@link Stripe} holds the keys and their bound, and {@link TokenState}
 * the layout of a stored token bucket.
 */
public final class LocalStore implements BucketStore {

    private static final int STRIPES = 64;
    /** Log slots per key on average, for the slot budget. */
    private static final int LOG_SLOTS_PER_KEY = 16;

    private final MicroClock clock;
    private final Stripe[] stripes = new Stripe[STRIPES];

    public LocalStore(int maxKeys, MicroClock clock) {
        if (maxKeys < STRIPES) {
            throw new IllegalArgumentException("maxKeys must be at least " + STRIPES + ", got " + maxKeys);
        }
        this.clock = clock;
        int perStripe = maxKeys / STRIPES;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(perStripe, logSlotBudget(maxKeys) / STRIPES);
        }
    }

    /** The most log slots (8 bytes each) a store of {@code maxKeys} keys holds. */
    static long logSlotBudget(int maxKeys) {
        return STRIPES * Math.max(Algorithm.MAX_LOG_ENTRIES, (long) LOG_SLOTS_PER_KEY * (maxKeys / STRIPES));
    }

    @Override
    public String name() {
        return "local";
    }

    /** How many buckets are held now, full ones included until they are swept. */
    public int size() {
        int n = 0;
        for (Stripe s : stripes) {
            s.lock.lock();
            try {
                n += s.map.size();
            } finally {
                s.lock.unlock();
            }
        }
        return n;
    }

    /** What the store holds, counted: keys, sliding logs, their entries and the slots allocated for them. */
    record Usage(int keys, int logs, long logEntries, long logSlots) {
    }

    Usage usage() {
        int keys = 0;
        int logs = 0;
        long entries = 0;
        long slots = 0;
        for (Stripe s : stripes) {
            s.lock.lock();
            try {
                keys += s.map.size();
                for (Object v : s.map.values()) {
                    if (v instanceof SlidingLog log) {
                        logs++;
                        entries += log.size();
                        slots += log.slots();
                    }
                }
            } finally {
                s.lock.unlock();
            }
        }
        return new Usage(keys, logs, entries, slots);
    }

    @Override
    public List<BucketReply> acquire(List<BucketRequest> requests) {
        if (requests.size() == 1 && isPlainBucket(requests.get(0))) {
            return List.of(acquireOne((BucketRequest.Take) requests.get(0)));
        }
        return acquireAll(requests);
    }

    /**
     * {@link #acquire} for any call: lock the stripes of its keys, check every bucket, commit
     * every bucket, unlock. All-or-nothing across the enforcing buckets: the call passes when
     * every enforcing bucket admits it, and then each bucket whose own limits admit it takes
     * (a shadow bucket that refuses takes nothing); otherwise nothing is taken anywhere.
     */
    List<BucketReply> acquireAll(List<BucketRequest> requests) {
        int n = requests.size();
        long stripeMask = 0;
        for (int i = 0; i < n; i++) { // by index: no iterator per call
            stripeMask |= 1L << stripeOf(requests.get(i).key());
        }
        lockAll(stripeMask);
        try {
            long now = clock.nowMicros();
            BucketCheck[] checks = new BucketCheck[n];
            boolean passes = true;
            for (int i = 0; i < n; i++) {
                BucketRequest r = requests.get(i);
                checks[i] = BucketCheck.of(r, stripes[stripeOf(r.key())], now);
                passes &= checks[i].admits() || !r.enforcing();
            }
            List<BucketReply> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(checks[i].commit(passes && checks[i].admits(), now));
            }
            return out;
        } finally {
            unlockAll(stripeMask);
        }
    }

    /** One token bucket with one limit: what nearly every request asks (one policy, one rate). */
    private static boolean isPlainBucket(BucketRequest r) {
        return r instanceof BucketRequest.Take t && t.algorithm() == Algorithm.TOKEN_BUCKET && t.limits().size() == 1;
    }

    /**
     * {@link #acquire} for a call of one plain bucket, in one pass: alone in its call, the
     * bucket's own answer is the call's (enforcing or shadow), so the check that the
     * all-or-nothing passes over several buckets need is not made. The same arithmetic, in the
     * same order, as {@link BucketCheck.TokenCheck}; {@code BucketStoreContract} holds both to bucket.lua.
     */
    private BucketReply acquireOne(BucketRequest.Take r) {
        Stripe stripe = stripes[stripeOf(r.key())];
        stripe.lock.lock();
        try {
            long now = clock.nowMicros();
            Limit limit = r.limits().get(0);
            long full = limit.capacity() * limit.refillPeriodMicros();
            long[] state = stripe.bucket(r.key(), now);
            long debt = 0;
            long[] foreign = null;
            if (state != null && TokenState.holdsOnly(state, limit)) {
                debt = Gcra.debt(TokenState.tat(state, 0), TokenState.frac(state, 0), TokenState.unit(state, 0), now,
                        limit); // one state, its own
            } else if (state != null) {
                long[] d = new long[1]; // states of other limits, or several: read by the general rule
                foreign = Gcra.read(state, now, r.limits(), d);
                debt = d[0];
            }
            boolean capped = debt > full;
            if (capped) {
                debt = full;
            }
            long wanted = debt + r.cost() * limit.refillPeriodMicros();
            boolean take = wanted <= full;
            long after = take ? wanted : debt;
            // Written when taken, and when capped even if refused: see Gcra.
            if (foreign != null && (take || capped)) {
                stripe.put(r.key(), Gcra.write(now, r.limits(), new long[] {after}, foreign, take ? r.cost() : 0));
            } else if (take || capped) {
                // Updated in place when stored already: only calls holding this stripe's lock read it.
                long[] next = state != null ? state : TokenState.of(1);
                Gcra.write(next, 0, now, after, limit.capacity(), limit.refillPeriodMicros(), limit.refillTokens());
                TokenState.expires(next, Math.max(now, now + Gcra.ceilDiv(after, limit.refillTokens())));
                if (next != state) {
                    stripe.put(r.key(), next);
                }
            }
            return new BucketReply(List.of(Gcra.answer(limit, after, wanted)));
        } finally {
            stripe.lock.unlock();
        }
    }

    /**
     * For tests: stores a token-bucket state of whole-µs arrival times without tags (limits
     * unknown, as {@code bucket.lua} meets a key written by a build before tags), expiring after
     * the latest.
     */
    void putUntagged(String key, long[] tats) {
        long[] state = TokenState.of(tats.length);
        long expires = 0;
        for (int j = 0; j < tats.length; j++) {
            TokenState.put(state, j, tats[j], 0, 1, 0, 0);
            expires = Math.max(expires, tats[j]);
        }
        TokenState.expires(state, expires);
        Stripe stripe = stripes[stripeOf(key)];
        stripe.lock.lock();
        try {
            stripe.put(key, state);
        } finally {
            stripe.lock.unlock();
        }
    }

    /**
     * Brings a token bucket of this store (the fallback) up to what the shared store answered for
     * it, so that while the shared store fails this node continues from the shared bucket as it
     * last saw it instead of from a full one. Per limit the debt becomes the larger of
     * <ul>
     * <li>this store's own debt now, plus the request's cost when the shared store took it: what
     *     this node admitted, whoever decided (the requests admitted here while the shared store
     *     failed are in it, and the shared store never saw them), and
     * <li>the shared store's, {@code resetMicros x n} (µs until full is the debt, rounded up to a
     *     whole µs, never in the client's favour; counted from this node's now, which is after the
     *     shared store's decision, so a little later still): what every node admitted.
     * </ul>
     * The larger, not the sum: the shared debt holds this node's own admissions that it saw. Capped
     * at the time to fill, as {@link #acquire} caps. Only a token bucket (not a lease, a gate, a
     * sliding log or a calendar quota; those are left as they are) whose limits match the reply's.
     * A bucket that stays full stores nothing; one stored already, even full again, is updated in
     * place, so a decision on a known key makes no object here. The store's bound on keys holds as for {@link #acquire}.
     *
     * @param taken whether the shared store took the request's cost from this bucket
     */
    public void follow(BucketRequest request, BucketReply shared, boolean taken) {
        if (!(request instanceof BucketRequest.Take r) || r.algorithm() != Algorithm.TOKEN_BUCKET
                || shared.limits().size() != r.limits().size()) {
            return;
        }
        List<Limit> limits = r.limits();
        int m = limits.size();
        Stripe stripe = stripes[stripeOf(r.key())];
        stripe.lock.lock();
        try {
            long now = clock.nowMicros();
            // Also a state full again (past its expiry; it reads as no debt): updated in place, a
            // client that comes back after its bucket refilled makes no new array and entry.
            long[] state = stripe.map.get(r.key()) instanceof long[] s ? s : null;
            if (state == null && !taken && fullIn(shared)) {
                return; // full here and there: absent is full
            }
            // this node's own debts, read as acquire reads them (a state of other limits too)
            long[] own = new long[m];
            long[] foreign = state != null ? Gcra.read(state, now, limits, own) : new long[0];
            long expires = now;
            if (state == null || !TokenState.holdsExactly(state, limits)) {
                // of another shape: written anew, its foreign states kept (charged when the shared store took)
                state = Gcra.write(now, limits, new long[m], foreign, taken ? r.cost() : 0);
                expires = TokenState.expires(state);
                stripe.put(r.key(), state);
            }
            for (int j = 0; j < m; j++) {
                Limit l = limits.get(j);
                long n = l.refillTokens();
                long full = l.capacity() * l.refillPeriodMicros();
                long mine = Math.min(full, own[j]);
                if (taken) {
                    mine += r.cost() * l.refillPeriodMicros();
                }
                // at most full / n + 1 µs before the product: a reply beyond it cannot overflow
                long seen = Math.min(Math.max(0, shared.limits().get(j).resetMicros()), full / n + 1) * n;
                long debt = Math.min(full, Math.max(mine, seen));
                Gcra.write(state, j, now, debt, l.capacity(), l.refillPeriodMicros(), n);
                expires = Math.max(expires, now + Gcra.ceilDiv(debt, n));
            }
            TokenState.expires(state, expires);
        } finally {
            stripe.lock.unlock();
        }
    }

    private static boolean fullIn(BucketReply reply) {
        for (int j = 0; j < reply.limits().size(); j++) {
            if (reply.limits().get(j).resetMicros() > 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void release(List<BucketRequest.Lease> leases) {
        for (BucketRequest.Lease r : leases) {
            Stripe stripe = stripes[stripeOf(r.key())];
            stripe.lock.lock();
            try {
                if (stripe.map.get(r.key()) instanceof Leases held && held.release(r.id())) {
                    stripe.keep(r.key(), held);
                }
            } finally {
                stripe.lock.unlock();
            }
        }
    }

    @Override
    public long pause(String gateKey, long pauseMicros) {
        if (pauseMicros < 0) {
            throw new IllegalArgumentException("a pause is at least 0 µs, got " + pauseMicros);
        }
        Stripe stripe = stripes[stripeOf(gateKey)];
        stripe.lock.lock();
        try {
            long now = clock.nowMicros();
            long until = Math.max(stripe.pausedUntil(gateKey, now), now + pauseMicros);
            if (until > now) {
                stripe.put(gateKey, new Stripe.Pause(until));
            }
            return until - now;
        } finally {
            stripe.lock.unlock();
        }
    }

    @Override
    public void close() {
        for (Stripe s : stripes) {
            s.lock.lock();
            try {
                s.map.clear();
                s.logSlots = 0;
            } finally {
                s.lock.unlock();
            }
        }
    }

    /**
     * The stripe of a key, from the top bits of a multiplicative hash. Not from the low bits: each
     * stripe's HashMap indexes its table by the low bits of the same hash, and if the stripe had
     * already fixed them, every key of a stripe would crowd into 1/64 of its table's buckets.
     */
    private static int stripeOf(String key) {
        return (key.hashCode() * 0x9E3779B9) >>> (Integer.SIZE - Integer.numberOfTrailingZeros(STRIPES));
    }

    private void lockAll(long mask) {
        for (int i = 0; i < STRIPES; i++) {
            if ((mask & (1L << i)) != 0) {
                stripes[i].lock.lock();
            }
        }
    }

    private void unlockAll(long mask) {
        for (int i = STRIPES - 1; i >= 0; i--) {
            if ((mask & (1L << i)) != 0) {
                stripes[i].lock.unlock();
            }
        }
    }
}
