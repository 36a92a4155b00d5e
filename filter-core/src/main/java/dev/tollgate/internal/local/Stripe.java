package dev.tollgate.internal.local;

import java.util.LinkedHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock stripe of {@link LocalStore}: one lock and one access-ordered map, bounded in keys and
 * in sliding-log slots. A value is a token-bucket state ({@code long[]} laid out as
 * {@link TokenState} says: the call's limits' states and those of other limits kept, then the
 * expiry), a {@link SlidingLog}, a {@link CalendarQuota}, {@link Leases} or a {@link Pause}. A value of
 * the other algorithm than the request's is treated as absent and dropped (keys name their
 * algorithm, so only a caller that does not can meet one).
 */
final class Stripe {

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
     * The token-bucket state, of whatever limits wrote it ({@link Gcra#read} reads it), or
     * {@code null} when absent or full again.
     */
    long[] bucket(String key, long now) {
        Object v = map.get(key);
        if (v instanceof long[] state && TokenState.expires(state) > now) {
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

    /** The log, trimmed to its newest {@code most} (see {@link SlidingLog#keepNewest}); a new, unstored one when absent. */
    SlidingLog log(String key, long most) {
        Object v = map.get(key);
        if (v instanceof SlidingLog log) {
            log.keepNewest(most);
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

    /** A pause gate's state: nothing holding it is admitted before {@code untilMicros}. */
    record Pause(long untilMicros) {
    }

    void remove(String key) {
        if (map.remove(key) instanceof SlidingLog log) {
            logSlots -= log.charged;
        }
    }
}
