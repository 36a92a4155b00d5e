package dev.tollgate.internal.bucket;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The exact reference model of a {@link dev.tollgate.internal.bucket.BucketStore}, written from the
 * definitions with rational numbers rather than the stores' scaled integers, so that the
 * property tests can hold both stores to it.
 *
 * <p>Token bucket (GCRA): each limit keeps the time at which it is full again, its arrival time,
 * an exact rational number of microseconds. Read at {@code now} under a limit of capacity C that
 * refills n tokens every p µs (T = p/n µs per token), the bucket owes D = max(0, TAT - now),
 * capped at the time to fill C·T; it admits cost k when D + k·T <= C·T, and then owes D + k·T.
 * Which state a limit reads (issue 28: nodes of two configurations share keys during a rolling
 * deploy or a reload): every state carries a tag naming the limit that wrote it, its capacity C,
 * p and n.
 * <ul>
 *   <li>limit j reads the first state not yet read whose tag is its own;</li>
 *   <li>a key of one state without a tag (written before tags), read by one limit: that limit's;</li>
 *   <li>otherwise (no state of its own): the latest arrival time of all the states, each rounded
 *       up to a whole microsecond. A limit new to the key so owes what the key owes most, capped
 *       at its own time to fill; no change of limits, order, rate or burst reads a bucket as
 *       full.</li>
 * </ul>
 * The states whose tags name limits not among the call's are foreign: a node of another
 * configuration wrote them. A call that takes cost k charges each foreign state k of its own
 * tokens (k·p_f/n_f µs), up to its own time to fill, and keeps it; so every limit of every
 * configuration in force counts every admission, and each node admits by its own limits. A
 * foreign state that is full is dropped when the key is written, and at most four are kept,
 * those owing most in whole µs (of equals, the first). States without tags count only for the
 * latest arrival time, and are dropped when the key is written.
 * Normalisations, written back even when nothing is taken:
 * <ul>
 *   <li>a debt above the time to fill is capped, and the capped state is stored (the excess is
 *       forgiven from this moment on; a refusal therefore says the truth about when to retry):
 *       a debt read from another limit's state too;</li>
 *   <li>a read that caps nothing writes nothing, whatever it read (a refused read changes
 *       nothing later reads see, and a later read under the same limits reads the same); a
 *       refused read that caps charges nothing and keeps the foreign states as read;</li>
 *   <li>an arrival time written under another refill unit n, and not a whole microsecond, is
 *       read rounded up to the next whole microsecond (never in the client's favour). It is
 *       stored so only when the key is written for another reason.</li>
 * </ul>
 * Sliding log: the times of admitted requests; a read keeps only the newest {@code largest count}
 * entries, and a request taken at {@code now} first drops the entries at or before
 * {@code now - longest window} (neither alters a decision under the limits of that call; a
 * refused read drops nothing by time, so it changes nothing a later read can tell). A limit (N, W) admits cost k when the
 * entries in {@code (now - W, now]} plus k are at most N.
 *
 * <p>A key's state is kept per algorithm: a policy that switches algorithm finds its own state
 * of that algorithm, if any, and never the other's.
 *
 * <p>Not thread-safe.
 */
public final class BucketModel {

    /** An exact rational number. */
    record Q(BigInteger num, BigInteger den) implements Comparable<Q> {

        static final Q ZERO = of(0);

        Q {
            if (den.signum() < 0) {
                num = num.negate();
                den = den.negate();
            }
            BigInteger g = num.gcd(den);
            if (g.signum() != 0 && !g.equals(BigInteger.ONE)) {
                num = num.divide(g);
                den = den.divide(g);
            }
        }

        static Q of(long n) {
            return new Q(BigInteger.valueOf(n), BigInteger.ONE);
        }

        static Q of(long n, long d) {
            return new Q(BigInteger.valueOf(n), BigInteger.valueOf(d));
        }

        Q plus(Q o) {
            return new Q(num.multiply(o.den).add(o.num.multiply(den)), den.multiply(o.den));
        }

        Q minus(Q o) {
            return plus(new Q(o.num.negate(), o.den));
        }

        Q times(long k) {
            return new Q(num.multiply(BigInteger.valueOf(k)), den);
        }

        Q times(Q o) {
            return new Q(num.multiply(o.num), den.multiply(o.den));
        }

        Q dividedBy(Q o) {
            return new Q(num.multiply(o.den), den.multiply(o.num));
        }

        long floor() {
            BigInteger[] qr = num.divideAndRemainder(den);
            BigInteger q = qr[0];
            if (qr[1].signum() < 0) {
                q = q.subtract(BigInteger.ONE);
            }
            return q.longValueExact();
        }

        long ceil() {
            return -new Q(num.negate(), den).floor();
        }

        boolean isWhole() {
            return den.equals(BigInteger.ONE);
        }

        int signum() {
            return num.signum();
        }

        static Q max(Q a, Q b) {
            return a.compareTo(b) >= 0 ? a : b;
        }

        @Override
        public int compareTo(Q o) {
            return num.multiply(o.den).compareTo(o.num.multiply(den));
        }

        @Override
        public String toString() {
            return isWhole() ? num.toString() : num + "/" + den;
        }
    }

    /** What names a token-bucket state: the limit of capacity C that refills n tokens every p µs. */
    record Tag(long capacity, long p, long n) {

        static Tag of(Limit l) {
            return new Tag(l.capacity(), l.refillPeriodMicros(), l.refillTokens());
        }

        /** The time per token, p/n µs. */
        Q perToken() {
            return Q.of(p, n);
        }

        /** The time to fill, C·p/n µs. */
        Q full() {
            return perToken().times(capacity);
        }
    }

    /**
     * One state of a token bucket: its arrival time, the refill tokens n of the limit it was
     * written under, and its tag ({@code null}: none, written before tags).
     */
    record State(Q tat, long writtenUnder, Tag tag) {

        /** The arrival time read under n tokens: rounded up to a whole µs when written under another n. */
        Q tatUnder(long n) {
            return !tat.isWhole() && writtenUnder != n ? Q.of(tat.ceil()) : tat;
        }
    }

    /** A token bucket: the call's limits' states, then the foreign ones it keeps. */
    record Bucket(List<State> states) {
    }

    /** A foreign state kept by a call: where it was ({@code index}), its debt as read, and what its cap forgave. */
    private record Foreign(int index, Tag tag, Q debt, Q forgiven) {
    }

    /**
     * One state a call wrote, for the bound checks: its tag, which state of the key as read it
     * continues ({@code -1}: none, it started full), and the time its cap forgave; for a limit
     * of the call before its own take ({@code capAfterTake} false), for a foreign state after
     * its charge.
     */
    record Link(Tag tag, int source, Q forgiven, boolean capAfterTake) {
    }

    /** A sliding log: the times of admitted requests, oldest first. */
    static final class Log {
        final List<Long> times = new ArrayList<>();
    }

    /**
     * What one call did, for the bound checks: the reply, whether each bucket took, and for a
     * token bucket per limit the time forgiven by capping (zero when none) and which stored state
     * it read ({@code -1} for none: it started full; for a limit that read the latest arrival
     * time, the state that holds it), whether the bucket was written, and if so each state it
     * wrote ({@code links}: the limits' in order, then the foreign ones; {@code null} when not
     * written).
     */
    record Outcome(long[] reply, boolean[] taken, Q[][] forgiven, int[][] sources, boolean[] wrote, Link[][] links) {
    }

    private final Map<String, Object> states = new HashMap<>();

    /** Forgets every bucket: the store restarted without its data. */
    void restart() {
        states.clear();
    }

    private static String id(BucketRequest.Take r) {
        return r.key() + "|" + r.algorithm();
    }

    Outcome acquire(List<BucketRequest> requests, long now) {
        int n = requests.size();
        Q[][] debts = new Q[n][];
        Q[][] forgiven = new Q[n][];
        int[][] sources = new int[n][];
        boolean[] capped = new boolean[n];
        boolean[] admits = new boolean[n];
        Log[] logs = new Log[n];
        List<List<Foreign>> foreign = new ArrayList<>();
        long[][] counts = new long[n][];
        boolean all = true;
        for (int i = 0; i < n; i++) {
            BucketRequest.Take r = (BucketRequest.Take) requests.get(i); // the model keeps rate buckets only
            List<Limit> limits = r.limits();
            int m = limits.size();
            boolean ok = true;
            if (r.algorithm() == Algorithm.SLIDING_LOG) {
                Log log = states.get(id(r)) instanceof Log l ? l : new Log();
                long most = 0;
                for (Limit l : limits) {
                    most = Math.max(most, l.capacity());
                }
                while (log.times.size() > most) {
                    log.times.remove(0);
                }
                counts[i] = new long[m];
                for (int j = 0; j < m; j++) {
                    Limit l = limits.get(j);
                    counts[i][j] = countAfter(log, now - l.windowMicros());
                    ok &= counts[i][j] + r.cost() <= l.capacity();
                }
                logs[i] = log;
                forgiven[i] = new Q[0];
                sources[i] = new int[0];
                foreign.add(List.of());
            } else {
                Bucket b = states.get(id(r)) instanceof Bucket s ? s : null;
                List<State> stored = b == null ? List.of() : b.states();
                debts[i] = new Q[m];
                forgiven[i] = new Q[m];
                boolean[] used = new boolean[stored.size()];
                sources[i] = read(stored, limits, now, debts[i], used);
                for (int j = 0; j < m; j++) {
                    Limit l = limits.get(j);
                    Q perToken = Q.of(l.refillPeriodMicros(), l.refillTokens());
                    Q full = perToken.times(l.capacity());
                    Q d = debts[i][j];
                    forgiven[i][j] = Q.ZERO;
                    if (d.compareTo(full) > 0) {
                        forgiven[i][j] = d.minus(full);
                        d = full;
                        capped[i] = true;
                    }
                    debts[i][j] = d;
                    ok &= d.plus(perToken.times(r.cost())).compareTo(full) <= 0;
                }
                foreign.add(foreign(stored, used, limits, now));
            }
            admits[i] = ok;
            if (r.enforcing() && !ok) {
                all = false;
            }
        }
        int size = 0;
        for (BucketRequest r : requests) {
            size += r.limits().size();
        }
        long[] out = new long[4 * size];
        boolean[] taken = new boolean[n];
        boolean[] wrote = new boolean[n];
        Link[][] links = new Link[n][];
        int at = 0;
        for (int i = 0; i < n; i++) {
            BucketRequest.Take r = (BucketRequest.Take) requests.get(i); // the model keeps rate buckets only
            List<Limit> limits = r.limits();
            boolean take = all && admits[i];
            taken[i] = take;
            if (logs[i] != null) {
                Log log = logs[i];
                List<Long> before = new ArrayList<>(log.times);
                if (take) {
                    long horizon = now - longestWindow(limits);
                    log.times.removeIf(t -> t <= horizon);
                    for (long k = 0; k < r.cost(); k++) {
                        log.times.add(now);
                    }
                }
                for (int j = 0; j < limits.size(); j++, at += 4) {
                    Limit l = limits.get(j);
                    long window = l.windowMicros();
                    long since = now - window;
                    long after = countAfter(log, since);
                    out[at] = Math.max(0, l.capacity() - after);
                    out[at + 1] = after > 0 ? entryAfter(log.times, since, Math.max(1, after - l.capacity() + 1)) + window - now : 0;
                    out[at + 2] = after > 0 ? log.times.get(log.times.size() - 1) + window - now : 0;
                    long wanted = counts[i][j] + r.cost();
                    out[at + 3] = wanted > l.capacity() ? entryAfter(before, since, wanted - l.capacity()) + window - now : 0;
                }
                if (log.times.isEmpty()) {
                    states.remove(id(r));
                } else {
                    states.put(id(r), log);
                }
                continue;
            }
            List<State> written = new ArrayList<>();
            List<Link> link = new ArrayList<>();
            for (int j = 0; j < limits.size(); j++, at += 4) {
                Limit l = limits.get(j);
                Q perToken = Q.of(l.refillPeriodMicros(), l.refillTokens());
                Q full = perToken.times(l.capacity());
                Q d = debts[i][j];
                Q wanted = d.plus(perToken.times(r.cost()));
                Q after = take ? wanted : d;
                long remaining = full.minus(after).dividedBy(perToken).floor();
                out[at] = remaining;
                out[at + 1] = after.signum() > 0 ? after.minus(perToken.times(l.capacity() - remaining - 1)).ceil() : 0;
                out[at + 2] = after.ceil();
                out[at + 3] = wanted.compareTo(full) > 0 ? wanted.minus(full).ceil() : 0;
                written.add(new State(Q.of(now).plus(after), l.refillTokens(), Tag.of(l)));
                link.add(new Link(Tag.of(l), sources[i][j], forgiven[i][j], false));
            }
            for (Foreign f : foreign.get(i)) {
                Q d = f.debt();
                Q cut = f.forgiven();
                if (take) {
                    d = d.plus(f.tag().perToken().times(r.cost()));
                    if (d.compareTo(f.tag().full()) > 0) {
                        cut = cut.plus(d.minus(f.tag().full()));
                        d = f.tag().full();
                    }
                }
                written.add(new State(Q.of(now).plus(d), f.tag().n(), f.tag()));
                link.add(new Link(f.tag(), f.index(), cut, true));
            }
            if (take || capped[i]) {
                states.put(id(r), new Bucket(written));
                wrote[i] = true;
                links[i] = link.toArray(new Link[0]);
            }
        }
        return new Outcome(out, taken, forgiven, sources, wrote, links);
    }

    /**
     * Each limit's debt into {@code debts}, not yet capped: its own state's (the first not yet
     * read with its tag, or the one untagged state of a key read by one limit; then marked in
     * {@code used}), else the latest arrival time of all the states rounded up to a whole µs.
     * Returns which state each read: its own, or the one with the latest arrival time (the first
     * of equals), or -1 when the key holds nothing.
     */
    private static int[] read(List<State> stored, List<Limit> limits, long now, Q[] debts, boolean[] used) {
        int m = limits.size();
        int k = stored.size();
        int[] source = new int[m];
        int latest = -1;
        for (int s = 0; s < k; s++) {
            if (latest < 0 || stored.get(s).tat().ceil() > stored.get(latest).tat().ceil()) {
                latest = s;
            }
        }
        for (int j = 0; j < m; j++) {
            Limit l = limits.get(j);
            int own = -1;
            for (int s = 0; s < k && own < 0; s++) {
                if (!used[s] && Tag.of(l).equals(stored.get(s).tag())) {
                    own = s;
                }
            }
            if (own < 0 && k == 1 && m == 1 && stored.get(0).tag() == null) {
                own = 0;
            }
            if (own >= 0) {
                used[own] = true;
                source[j] = own;
                debts[j] = Q.max(Q.ZERO, stored.get(own).tatUnder(l.refillTokens()).minus(Q.of(now)));
            } else {
                source[j] = latest;
                debts[j] = latest < 0 ? Q.ZERO : Q.max(Q.ZERO, Q.of(stored.get(latest).tat().ceil()).minus(Q.of(now)));
            }
        }
        return source;
    }

    /**
     * The foreign states a call keeps: those not read as a limit's own, with a tag that names no
     * limit of the call, not full (a debt above the time to fill, which only a clock that ran
     * back could leave, is capped), at most four: those owing most in whole µs, of equals the
     * first, in their order.
     */
    private static List<Foreign> foreign(List<State> stored, boolean[] used, List<Limit> limits, long now) {
        List<Foreign> out = new ArrayList<>();
        for (int s = 0; s < stored.size(); s++) {
            State st = stored.get(s);
            if (used[s] || st.tag() == null || limits.stream().anyMatch(l -> Tag.of(l).equals(st.tag()))) {
                continue;
            }
            Q d = Q.max(Q.ZERO, st.tatUnder(st.tag().n()).minus(Q.of(now)));
            Q cut = Q.ZERO;
            if (d.compareTo(st.tag().full()) > 0) {
                cut = d.minus(st.tag().full());
                d = st.tag().full();
            }
            if (d.signum() > 0) {
                out.add(new Foreign(s, st.tag(), d, cut));
            }
        }
        while (out.size() > 4) {
            int least = out.size() - 1;
            for (int g = out.size() - 2; g >= 0; g--) {
                if (out.get(g).debt().ceil() < out.get(least).debt().ceil()) {
                    least = g;
                }
            }
            out.remove(least);
        }
        return out;
    }

    private static long longestWindow(List<Limit> limits) {
        long longest = 0;
        for (Limit l : limits) {
            longest = Math.max(longest, l.windowMicros());
        }
        return longest;
    }

    private static long countAfter(Log log, long since) {
        long c = 0;
        for (long t : log.times) {
            if (t > since) {
                c++;
            }
        }
        return c;
    }

    /** The k-th (1-based, oldest first) time after {@code since}. */
    private static long entryAfter(List<Long> times, long since, long k) {
        long seen = 0;
        for (long t : times) {
            if (t > since && ++seen == k) {
                return t;
            }
        }
        throw new IllegalStateException("no entry " + k + " after " + since + " in " + times);
    }
}
