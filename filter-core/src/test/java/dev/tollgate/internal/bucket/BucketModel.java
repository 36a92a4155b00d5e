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
 * deploy or a reload): a state written by a call of several limits carries a tag per limit, the
 * limit's time to fill C·p (in 1/n µs) and its n; a state of one limit carries none, as every
 * version wrote it.
 * <ul>
 *   <li>tagged states: limit j reads the first not yet used whose tag is its own;</li>
 *   <li>untagged states as many as the limits: limit j reads the j-th (every earlier version);</li>
 *   <li>otherwise (no state of its own, or untagged states of another number): limit j reads the
 *       latest arrival time of them all, each rounded up to a whole microsecond. A limit new to
 *       the key so owes what the key owes most, capped at its own time to fill; no change of
 *       limits, order, rate or burst reads a bucket as full.</li>
 * </ul>
 * Normalisations, written back even when nothing is taken:
 * <ul>
 *   <li>a debt above the time to fill is capped, and the capped state is stored (the excess is
 *       forgiven from this moment on; a refusal therefore says the truth about when to retry),
 *       in the shape of the limits read: a debt read from another limit's state too;</li>
 *   <li>a read that caps nothing writes nothing, whatever it read (a refused read changes
 *       nothing later reads see, and a later read under the same limits reads the same);</li>
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

    /**
     * A token bucket: per state its arrival time, the refill tokens n of the limit it was written
     * under, and its tag: that limit's time to fill C·p in 1/n µs, or 0 (no tag) in a bucket of
     * one limit.
     */
    record Bucket(Q[] tats, long[] writtenUnder, long[] tags) {

        boolean tagged() {
            for (long t : tags) {
                if (t != 0) {
                    return true;
                }
            }
            return false;
        }
    }

    /** A sliding log: the times of admitted requests, oldest first. */
    static final class Log {
        final List<Long> times = new ArrayList<>();
    }

    /**
     * What one call did, for the bound checks: the reply, whether each bucket took, and for a
     * token bucket per limit the time forgiven by capping (zero when none) and which stored state
     * it read ({@code -1} for none: it started full; for a limit that read the latest arrival
     * time, the state that holds it), and whether the bucket was written.
     */
    record Outcome(long[] reply, boolean[] taken, Q[][] forgiven, int[][] sources, boolean[] wrote) {
    }

    private final Map<String, Object> states = new HashMap<>();

    /** Forgets every bucket: the store restarted without its data. */
    void restart() {
        states.clear();
    }

    private static String id(BucketRequest r) {
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
        long[][] counts = new long[n][];
        boolean all = true;
        for (int i = 0; i < n; i++) {
            BucketRequest r = requests.get(i);
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
            } else {
                Bucket b = states.get(id(r)) instanceof Bucket s ? s : null;
                debts[i] = new Q[m];
                forgiven[i] = new Q[m];
                boolean[] own = new boolean[m];
                sources[i] = read(b, limits, own);
                for (int j = 0; j < m; j++) {
                    Limit l = limits.get(j);
                    Q perToken = Q.of(l.refillPeriodMicros(), l.refillTokens());
                    Q full = perToken.times(l.capacity());
                    Q d = Q.ZERO;
                    int s = sources[i][j];
                    if (s >= 0) {
                        Q tat = b.tats()[s];
                        if (!own[j] || (!tat.isWhole() && b.writtenUnder()[s] != l.refillTokens())) {
                            tat = Q.of(tat.ceil());
                        }
                        d = Q.max(Q.ZERO, tat.minus(Q.of(now)));
                    }
                    forgiven[i][j] = Q.ZERO;
                    if (d.compareTo(full) > 0) {
                        forgiven[i][j] = d.minus(full);
                        d = full;
                        capped[i] = true;
                    }
                    debts[i][j] = d;
                    ok &= d.plus(perToken.times(r.cost())).compareTo(full) <= 0;
                }
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
        int at = 0;
        for (int i = 0; i < n; i++) {
            BucketRequest r = requests.get(i);
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
            Q[] tats = new Q[limits.size()];
            long[] units = new long[limits.size()];
            long[] tags = new long[limits.size()];
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
                tats[j] = Q.of(now).plus(after);
                units[j] = l.refillTokens();
                tags[j] = limits.size() > 1 ? l.capacity() * l.refillPeriodMicros() : 0;
            }
            if (take || capped[i]) {
                states.put(id(r), new Bucket(tats, units, tags));
                wrote[i] = true;
            }
        }
        return new Outcome(out, taken, forgiven, sources, wrote);
    }

    /**
     * Which state each limit reads: the limit's own (tagged with its tag, or by position; then
     * {@code own[j]}), else the one with the latest arrival time rounded up to a whole µs (the
     * first of equals), or -1 when the bucket holds nothing.
     */
    private static int[] read(Bucket b, List<Limit> limits, boolean[] own) {
        int m = limits.size();
        int[] source = new int[m];
        java.util.Arrays.fill(source, -1);
        if (b == null || b.tats().length == 0) {
            return source;
        }
        int k = b.tats().length;
        boolean tagged = b.tagged();
        boolean[] used = new boolean[k];
        int latest = 0;
        for (int s = 1; s < k; s++) {
            if (b.tats()[s].ceil() > b.tats()[latest].ceil()) {
                latest = s;
            }
        }
        for (int j = 0; j < m; j++) {
            Limit l = limits.get(j);
            if (tagged) {
                for (int s = 0; s < k && source[j] < 0; s++) {
                    if (!used[s] && b.tags()[s] == l.capacity() * l.refillPeriodMicros()
                            && b.writtenUnder()[s] == l.refillTokens()) {
                        used[s] = true;
                        source[j] = s;
                    }
                }
            } else if (k == m) {
                source[j] = j;
            }
            own[j] = source[j] >= 0;
            if (!own[j]) {
                source[j] = latest;
            }
        }
        return source;
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
