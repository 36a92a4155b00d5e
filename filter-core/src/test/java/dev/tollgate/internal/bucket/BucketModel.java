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
 * Normalisations, written back even when nothing is taken:
 * <ul>
 *   <li>a debt above the time to fill is capped, and the capped state is stored (the excess is
 *       forgiven from this moment on; a refusal therefore says the truth about when to retry);</li>
 *   <li>a state written for another number of limits is read as full; it is replaced when the
 *       bucket is written, and otherwise kept (a refused read changes nothing later reads see);</li>
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

    /** A token bucket: per limit its arrival time and the refill tokens n of the limit it was written under. */
    record Bucket(Q[] tats, long[] writtenUnder) {
    }

    /** A sliding log: the times of admitted requests, oldest first. */
    static final class Log {
        final List<Long> times = new ArrayList<>();
    }

    /**
     * What one call did, for the bound checks: the reply, whether each bucket took, for a token
     * bucket the time forgiven per limit by capping (zero when none), and whether its state was
     * dropped (it started full).
     */
    record Outcome(long[] reply, boolean[] taken, Q[][] forgiven, boolean[] restarted) {
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
        boolean[] capped = new boolean[n];
        boolean[] restarted = new boolean[n];
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
            } else {
                Bucket b = states.get(id(r)) instanceof Bucket s ? s : null;
                if (b != null && b.tats().length != m) {
                    b = null; // read as full; kept unless this call writes the bucket
                    restarted[i] = true;
                }
                debts[i] = new Q[m];
                forgiven[i] = new Q[m];
                for (int j = 0; j < m; j++) {
                    Limit l = limits.get(j);
                    Q perToken = Q.of(l.refillPeriodMicros(), l.refillTokens());
                    Q full = perToken.times(l.capacity());
                    Q d = Q.ZERO;
                    if (b != null) {
                        Q tat = b.tats()[j];
                        if (!tat.isWhole() && b.writtenUnder()[j] != l.refillTokens()) {
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
            }
            if (take || capped[i]) {
                states.put(id(r), new Bucket(tats, units));
            }
        }
        return new Outcome(out, taken, forgiven, restarted);
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
