package dev.tollgate.internal;

import dev.tollgate.Limit;
import dev.tollgate.spi.BucketRequest;
import dev.tollgate.spi.BucketStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Token buckets in this JVM's memory, with the same meaning as the Redis store: for one server,
 * and as the fallback while Redis fails.
 *
 * <p>Bounded: it holds at most {@code maxKeys} buckets (about 100 bytes each). Beyond that the
 * least recently used bucket is forgotten, which gives that client a full bucket again. A flood
 * of distinct keys therefore costs a bounded amount of memory and, at worst, lets the forgotten
 * clients start over. A bucket that is full again is the same as an absent one.
 *
 * <p>Thread-safe: the keys are spread over lock stripes; one call locks the stripes of its keys
 * in a fixed order, so calls over several keys are atomic and cannot deadlock.
 */
public final class LocalStore implements BucketStore {

    private static final int STRIPES = 64;

    private final MicroClock clock;
    private final Stripe[] stripes = new Stripe[STRIPES];

    public LocalStore(int maxKeys, MicroClock clock) {
        if (maxKeys < STRIPES) {
            throw new IllegalArgumentException("maxKeys must be at least " + STRIPES + ", got " + maxKeys);
        }
        this.clock = clock;
        int perStripe = maxKeys / STRIPES;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(perStripe);
        }
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

    @Override
    public long[] acquire(List<BucketRequest> requests) {
        int size = 0;
        for (BucketRequest r : requests) {
            size += r.limits().size();
        }
        long[] out = new long[size * 4];
        long stripeMask = 0;
        for (BucketRequest r : requests) {
            stripeMask |= 1L << stripeOf(r.key());
        }
        lockAll(stripeMask);
        try {
            long now = clock.nowMicros();
            long[][] debts = new long[requests.size()][];
            boolean[] admits = new boolean[requests.size()];
            boolean enforcingAdmit = true;
            for (int i = 0; i < requests.size(); i++) {
                BucketRequest r = requests.get(i);
                long[] state = stripes[stripeOf(r.key())].get(r.key(), now, r.limits().size());
                long[] d = new long[r.limits().size()];
                boolean ok = true;
                for (int j = 0; j < d.length; j++) {
                    Limit limit = r.limits().get(j);
                    d[j] = state == null ? 0 : Gcra.debt(state[2 * j], state[2 * j + 1], now, limit);
                    ok &= d[j] + r.cost() * limit.refillPeriodMicros()
                            <= limit.capacity() * limit.refillPeriodMicros();
                }
                debts[i] = d;
                admits[i] = ok;
                if (r.enforcing() && !ok) {
                    enforcingAdmit = false;
                }
            }
            int at = 0;
            for (int i = 0; i < requests.size(); i++) {
                BucketRequest r = requests.get(i);
                boolean take = enforcingAdmit && admits[i];
                long[] d = debts[i];
                long[] state = take ? new long[2 * d.length + 1] : null;
                long expires = now;
                for (int j = 0; j < d.length; j++) {
                    Limit limit = r.limits().get(j);
                    long wanted = d[j] + r.cost() * limit.refillPeriodMicros();
                    long after = take ? wanted : d[j];
                    Gcra.answer(out, at, limit, after, wanted);
                    at += 4;
                    if (take) {
                        state[2 * j] = Gcra.tatMicros(now, after, limit);
                        state[2 * j + 1] = Gcra.tatFrac(after, limit);
                        expires = Math.max(expires, now + Gcra.ceilDiv(after, limit.refillTokens()));
                    }
                }
                if (take) {
                    state[2 * d.length] = expires;
                    stripes[stripeOf(r.key())].put(r.key(), state);
                }
            }
            return out;
        } finally {
            unlockAll(stripeMask);
        }
    }

    @Override
    public void close() {
        for (Stripe s : stripes) {
            s.lock.lock();
            try {
                s.map.clear();
            } finally {
                s.lock.unlock();
            }
        }
    }

    private static int stripeOf(String key) {
        int h = key.hashCode();
        return (h ^ (h >>> 16)) & (STRIPES - 1);
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

    /** One lock and one access-ordered map; the last slot of a state is its expiry in µs. */
    private static final class Stripe {
        final ReentrantLock lock = new ReentrantLock();
        final int max;
        final LinkedHashMap<String, long[]> map;

        Stripe(int max) {
            this.max = max;
            this.map = new LinkedHashMap<>(16, 0.75f, true);
        }

        long[] get(String key, long now, int limits) {
            long[] state = map.get(key);
            if (state == null) {
                return null;
            }
            if (state[state.length - 1] <= now || state.length != 2 * limits + 1) {
                map.remove(key); // full again, or written for another set of limits
                return null;
            }
            return state;
        }

        void put(String key, long[] state) {
            map.put(key, state);
            if (map.size() > max) {
                // The least recently used bucket goes: it is the likeliest to be full again.
                var eldest = map.values().iterator();
                eldest.next();
                eldest.remove();
            }
        }
    }

    /** For tests: the held state of a key, or {@code null}. */
    Map<String, long[]> snapshot() {
        Map<String, long[]> all = new LinkedHashMap<>();
        for (Stripe s : stripes) {
            s.lock.lock();
            try {
                all.putAll(s.map);
            } finally {
                s.lock.unlock();
            }
        }
        return all;
    }
}
