package dev.tollgate.internal.local;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

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
 * <p>Longer than most classes on purpose: it is the in-memory twin of {@code bucket.lua} (both
 * algorithms, all-or-nothing across buckets, striped locks, bounded memory with eviction), and
 * reading it next to the script is easier in one file.
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
            return List.of(acquireOne(requests.get(0)));
        }
        return acquireAll(requests);
    }

    /** {@link #acquire} for any call: two passes, all-or-nothing across the enforcing buckets. */
    List<BucketReply> acquireAll(List<BucketRequest> requests) {
        List<BucketReply> out = new ArrayList<>(requests.size());
        long stripeMask = 0;
        for (int i = 0; i < requests.size(); i++) { // by index: no iterator per call
            stripeMask |= 1L << stripeOf(requests.get(i).key());
        }
        lockAll(stripeMask);
        try {
            long now = clock.nowMicros();
            int n = requests.size();
            long[][] wanted = new long[n][];
            long[][] debts = new long[n][];
            long[][] foreign = new long[n][];
            boolean[][] claimed = new boolean[n][];
            CalendarQuota[] quotas = new CalendarQuota[n];
            boolean[] capped = new boolean[n];
            SlidingLog[] logs = new SlidingLog[n];
            long[][] windows = new long[n][];
            long[][] used = new long[n][];
            long[][] holds = new long[n][];
            Leases[] leases = new Leases[n];
            boolean[] admits = new boolean[n];
            boolean enforcingAdmit = true;
            for (int i = 0; i < n; i++) {
                BucketRequest r = requests.get(i);
                List<Limit> limits = r.limits();
                Stripe stripe = stripes[stripeOf(r.key())];
                long[] w = new long[limits.size()];
                boolean ok = true;
                if (r.gate()) {
                    w[0] = Math.max(0, stripe.pausedUntil(r.key(), now) - now);
                    ok = w[0] == 0;
                } else if (r.isLease()) {
                    leases[i] = stripe.leases(r.key());
                    w[0] = leases[i].live(now) + 1;
                    ok = w[0] <= limits.get(0).capacity();
                } else if (r.algorithm() == Algorithm.CALENDAR) {
                    CalendarQuota quota = stripe.calendar(r.key(), now);
                    long[] bounds = new long[2 * w.length];
                    long[] u = new long[w.length];
                    long[] h = new long[w.length];
                    for (int j = 0; j < w.length; j++) {
                        Limit l = limits.get(j);
                        bounds[2 * j] = l.calendar().startMicros(now);
                        bounds[2 * j + 1] = l.calendar().endMicros(now);
                    }
                    long[] capacities = new long[w.length];
                    for (int j = 0; j < w.length; j++) {
                        capacities[j] = limits.get(j).capacity();
                    }
                    claimed[i] = CalendarQuota.read(quota, bounds, now, capacities, r.cost(), u, h);
                    quotas[i] = quota;
                    for (int j = 0; j < w.length; j++) {
                        w[j] = u[j] + r.cost();
                        ok &= w[j] <= limits.get(j).capacity();
                    }
                    windows[i] = bounds;
                    used[i] = u;
                    holds[i] = h;
                } else if (r.algorithm() == Algorithm.SLIDING_LOG) {
                    SlidingLog log = stripe.log(r.key(), now, limits);
                    for (int j = 0; j < w.length; j++) {
                        Limit l = limits.get(j);
                        w[j] = log.countAfter(now - l.windowMicros()) + r.cost();
                        ok &= w[j] <= l.capacity();
                    }
                    logs[i] = log;
                } else {
                    long[] state = stripe.bucket(r.key(), now);
                    long[] d = new long[w.length];
                    foreign[i] = state != null ? Gcra.read(state, now, limits, d) : new long[0];
                    for (int j = 0; j < w.length; j++) {
                        Limit l = limits.get(j);
                        long full = l.capacity() * l.refillPeriodMicros();
                        if (d[j] > full) {
                            d[j] = full;
                            capped[i] = true;
                        }
                        w[j] = d[j] + r.cost() * l.refillPeriodMicros();
                        ok &= w[j] <= full;
                    }
                    debts[i] = d;
                }
                wanted[i] = w;
                admits[i] = ok;
                if (r.enforcing() && !ok) {
                    enforcingAdmit = false;
                }
            }
            for (int i = 0; i < n; i++) {
                BucketRequest r = requests.get(i);
                boolean take = enforcingAdmit && admits[i];
                List<Limit> limits = r.limits();
                Stripe stripe = stripes[stripeOf(r.key())];
                List<LimitState> states = new ArrayList<>(limits.size());
                if (r.gate()) {
                    long left = wanted[i][0]; // as bucket.lua answers for a gate: it takes nothing
                    out.add(new BucketReply(List.of(new LimitState(limits.get(0), left == 0 ? limits.get(0).capacity() : 0,
                            left, left, left))));
                    continue;
                }
                if (leases[i] != null) {
                    out.add(new BucketReply(List.of(leaseAnswer(r, leases[i], take, admits[i], now))));
                    stripe.keep(r.key(), leases[i]);
                    continue;
                }
                if (windows[i] != null) {
                    long[] starts = new long[limits.size()];
                    long[] counts = new long[limits.size()];
                    long[] ends = new long[limits.size()];
                    for (int j = 0; j < limits.size(); j++) {
                        long after = take ? wanted[i][j] : used[i][j];
                        long end = windows[i][2 * j + 1];
                        // written, the count holds until its window's end; else until what was read ends
                        states.add(CalendarQuota.answer(limits.get(j), now, take ? end : holds[i][j], after, wanted[i][j]));
                        starts[j] = windows[i][2 * j];
                        counts[j] = after;
                        ends[j] = end;
                    }
                    if (take) {
                        stripe.put(r.key(), CalendarQuota.written(quotas[i], claimed[i], starts, counts, ends, r.cost(), now));
                    }
                    out.add(new BucketReply(states));
                    continue;
                }
                if (logs[i] != null) {
                    if (take) {
                        logs[i].dropUpTo(now - longestWindow(limits));
                        logs[i].add(now, r.cost(), largestCount(limits));
                    }
                    for (int j = 0; j < limits.size(); j++) {
                        states.add(logs[i].answer(limits.get(j), now, wanted[i][j]));
                    }
                    stripe.keep(r.key(), logs[i]);
                    out.add(new BucketReply(states));
                    continue;
                }
                // Written when taken (each foreign state charged the cost), and when capped even if
                // refused: see Gcra.
                long[] afters = new long[limits.size()];
                for (int j = 0; j < limits.size(); j++) {
                    afters[j] = take ? wanted[i][j] : debts[i][j];
                    states.add(Gcra.answer(limits.get(j), afters[j], wanted[i][j]));
                }
                if (take || capped[i]) {
                    stripe.put(r.key(), Gcra.write(now, limits, afters, foreign[i], take ? r.cost() : 0));
                }
                out.add(new BucketReply(states));
            }
            return out;
        } finally {
            unlockAll(stripeMask);
        }
    }

    /** One token bucket with one limit: what nearly every request asks (one policy, one rate). */
    private static boolean isPlainBucket(BucketRequest r) {
        return !r.isLease() && !r.gate() && r.algorithm() == Algorithm.TOKEN_BUCKET && r.limits().size() == 1;
    }

    /**
     * {@link #acquire} for a call of one plain bucket, in one pass: alone in its call, the
     * bucket's own answer is the call's (enforcing or shadow), so the scratch arrays that the
     * all-or-nothing passes over several buckets need are not made. The same arithmetic, in the
     * same order, as the general path; {@code BucketStoreContract} holds both to bucket.lua.
     */
    private BucketReply acquireOne(BucketRequest r) {
        Stripe stripe = stripes[stripeOf(r.key())];
        stripe.lock.lock();
        try {
            long now = clock.nowMicros();
            Limit limit = r.limits().get(0);
            long full = limit.capacity() * limit.refillPeriodMicros();
            long[] state = stripe.bucket(r.key(), now);
            long debt = 0;
            long[] foreign = null;
            if (state != null && state.length == Gcra.FIELDS + 1 && Gcra.names(state, 0, limit)) {
                debt = Gcra.debt(state[0], state[1], state[2], now, limit); // one state, its own
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
                long[] next = state != null ? state : new long[Gcra.FIELDS + 1];
                Gcra.write(next, 0, now, after, limit.capacity(), limit.refillPeriodMicros(), limit.refillTokens());
                next[Gcra.FIELDS] = Math.max(now, now + Gcra.ceilDiv(after, limit.refillTokens()));
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
        long[] state = new long[Gcra.FIELDS * tats.length + 1];
        long expires = 0;
        for (int j = 0; j < tats.length; j++) {
            state[Gcra.FIELDS * j] = tats[j];
            state[Gcra.FIELDS * j + 2] = 1;
            expires = Math.max(expires, tats[j]);
        }
        state[Gcra.FIELDS * tats.length] = expires;
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
    public void follow(BucketRequest r, BucketReply shared, boolean taken) {
        List<Limit> limits = r.limits();
        int m = limits.size();
        if (r.isLease() || r.gate() || r.algorithm() != Algorithm.TOKEN_BUCKET || shared.limits().size() != m) {
            return;
        }
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
            if (state == null || !holdsExactly(state, limits)) {
                // of another shape: written anew, its foreign states kept (charged when the shared store took)
                state = Gcra.write(now, limits, new long[m], foreign, taken ? r.cost() : 0);
                expires = state[state.length - 1];
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
            state[state.length - 1] = expires;
        } finally {
            stripe.lock.unlock();
        }
    }

    /** Whether a stored state holds exactly one state per limit, each the limit's own, in order. */
    private static boolean holdsExactly(long[] state, List<Limit> limits) {
        if (state.length != Gcra.FIELDS * limits.size() + 1) {
            return false;
        }
        for (int j = 0; j < limits.size(); j++) {
            if (!Gcra.names(state, j, limits.get(j))) {
                return false;
            }
        }
        return true;
    }

    private static boolean fullIn(BucketReply reply) {
        for (int j = 0; j < reply.limits().size(); j++) {
            if (reply.limits().get(j).resetMicros() > 0) {
                return false;
            }
        }
        return true;
    }

    /** As bucket.lua answers for a lease: slots free, until the oldest and the newest expire, the wait. */
    private static LimitState leaseAnswer(BucketRequest r, Leases held, boolean take, boolean admits, long now) {
        Limit limit = r.limits().get(0);
        if (take) {
            held.take(r.lease(), now + limit.windowMicros());
        }
        int count = held.live(now);
        long next = held.isEmpty() ? 0 : held.oldest() - now;
        long full = held.isEmpty() ? 0 : held.newest() - now;
        // refused: until one more fits, the (held - slots + 1)-th oldest (more than the oldest after the slots were lowered)
        long wait = admits || held.isEmpty() ? 0 : held.expiryOf((int) (count - limit.capacity())) - now;
        return new LimitState(limit, Math.max(0, limit.capacity() - count), next, full, wait);
    }

    @Override
    public void release(List<BucketRequest> leases) {
        for (BucketRequest r : leases) {
            Stripe stripe = stripes[stripeOf(r.key())];
            stripe.lock.lock();
            try {
                if (stripe.map.get(r.key()) instanceof Leases held && held.release(r.lease())) {
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
                stripe.put(gateKey, new Pause(until));
            }
            return until - now;
        } finally {
            stripe.lock.unlock();
        }
    }

    /** A pause gate's state: nothing holding it is admitted before {@code untilMicros}. */
    private record Pause(long untilMicros) {
    }

    private static long longestWindow(List<Limit> limits) {
        long longest = 0;
        for (Limit l : limits) {
            longest = Math.max(longest, l.windowMicros());
        }
        return longest;
    }

    private static long largestCount(List<Limit> limits) {
        long most = 0;
        for (Limit l : limits) {
            most = Math.max(most, l.capacity());
        }
        return most;
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

    /**
     * One lock and one access-ordered map. A value is a token-bucket state ({@code long[]}: TAT,
     * remainder, its unit, and the capacity and p that name the limit, per state ({@link Gcra#FIELDS}: the
     * call's limits' and those of other limits kept), then the expiry in µs), a {@link SlidingLog}, a
     * {@link CalendarQuota}, {@link Leases} or a {@link Pause}. A value of
     * the other algorithm than the request's is treated as absent and dropped (keys name their
     * algorithm, so only a caller that does not can meet one).
     */
    private static final class Stripe {
        final ReentrantLock lock = new ReentrantLock();
        final int max;
        final long maxLogSlots;
        final LinkedHashMap<String, Object> map;
        long logSlots;

        Stripe(int max, long maxLogSlots) {
            this.max = max;
            this.maxLogSlots = maxLogSlots;
            this.map = new LinkedHashMap<>(16, 0.75f, true);
        }

        /**
         * The token-bucket state, of whatever limits wrote it ({@link Gcra#debts} reads it), or
         * {@code null} when absent or full again.
         */
        long[] bucket(String key, long now) {
            Object v = map.get(key);
            if (v instanceof long[] state && state[state.length - 1] > now) {
                return state;
            }
            if (v != null) {
                remove(key);
            }
            return null;
        }

        /** The calendar quotas' state, of whatever limits wrote it, or {@code null} when absent or past its windows. */
        CalendarQuota calendar(String key, long now) {
            Object v = map.get(key);
            if (v instanceof CalendarQuota quota && quota.expiresMicros > now) {
                return quota;
            }
            if (v != null) {
                remove(key);
            }
            return null;
        }

        /** The log, trimmed (see {@link SlidingLog#keepNewest}); a new, unstored one when absent. */
        SlidingLog log(String key, long now, List<Limit> limits) {
            Object v = map.get(key);
            if (v instanceof SlidingLog log) {
                log.keepNewest(largestCount(limits));
                return log;
            }
            if (v != null) {
                remove(key);
            }
            return new SlidingLog();
        }

        /** When the pause at a gate key ends; 0 when none lasts beyond now (an ended one is dropped). */
        long pausedUntil(String key, long now) {
            Object v = map.get(key);
            if (v instanceof Pause p && p.untilMicros() > now) {
                return p.untilMicros();
            }
            if (v != null) {
                remove(key);
            }
            return 0;
        }

        /** The leases at a key; new and unstored when absent. */
        Leases leases(String key) {
            Object v = map.get(key);
            if (v instanceof Leases l) {
                return l;
            }
            if (v != null) {
                remove(key);
            }
            return new Leases();
        }

        /** Stores leases after a change; none held is absent. */
        void keep(String key, Leases leases) {
            if (leases.isEmpty()) {
                if (map.get(key) == leases) {
                    remove(key);
                }
            } else if (map.get(key) != leases) {
                put(key, leases);
            }
        }

        /** Stores a log after a decision (an empty one is absent), counting its slots. */
        void keep(String key, SlidingLog log) {
            if (log.isEmpty()) {
                if (map.get(key) == log) {
                    remove(key);
                }
                return;
            }
            put(key, log);
            logSlots += log.slots() - log.charged;
            log.charged = log.slots();
            if (logSlots > maxLogSlots) {
                // The least recently used logs go; buckets free no slots, so they stay.
                var eldest = map.entrySet().iterator();
                while (logSlots > maxLogSlots && eldest.hasNext()) {
                    var e = eldest.next();
                    if (e.getValue() instanceof SlidingLog other && other != log) {
                        eldest.remove();
                        logSlots -= other.charged;
                    }
                }
            }
        }

        void put(String key, Object state) {
            Object old = map.put(key, state);
            if (old instanceof SlidingLog log && old != state) {
                logSlots -= log.charged;
            }
            if (map.size() > max) {
                // The least recently used bucket goes: it is the likeliest to be full again. Never
                // a client's live leases: forgetting them would give it its slots back, so a flood of
                // other keys (many IPv6 /64s) would lift its concurrency limit (issue 21). They are
                // as many as its requests in flight, and go with their last lease.
                var eldest = map.values().iterator();
                while (eldest.hasNext()) {
                    Object gone = eldest.next();
                    if (gone instanceof Leases held && !held.isEmpty()) {
                        continue;
                    }
                    eldest.remove();
                    if (gone instanceof SlidingLog log) {
                        logSlots -= log.charged;
                    }
                    break;
                }
            }
        }

        void remove(String key) {
            if (map.remove(key) instanceof SlidingLog log) {
                logSlots -= log.charged;
            }
        }
    }
}
