package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import redis.clients.jedis.HostAndPort;

/**
 * Routing by slot against a model of a cluster whose masters fail over, come back with new pools
 * and move slots, with Jedis' slot cache modelled as a copy of the cluster taken at each renewal,
 * renewals run when the test says so and a clock the test moves: every call gets what is kept for
 * the master its slot has in the cache, made once per master and pool; a redirection gets what is kept
 * for the master it names, its pool made if the cache does not list it; what was kept for a pool that
 * a renewal replaced is never handed out again; and a renewal is asked for when a call finds no
 * master or fails on one, at most one at a time and at most one per {@link ClusterNodes#RENEW_GAP}.
 */
class ClusterNodesPropertyTest {

    static final int SLOTS = 6;
    static final List<HostAndPort> ADDRESSES = List.of(new HostAndPort("10.0.0.1", 7000), new HostAndPort("10.0.0.2", 7000),
            new HostAndPort("10.0.0.3", 7000), new HostAndPort("10.0.0.4", 7000));

    /** What {@link ClusterNodes} keeps per master here: where it was made for, and which pool. */
    record Made(HostAndPort address, Object pool) {
    }

    sealed interface Step permits Lookup, Redirect, Failed, Move, NewPool, Forget, RunRenewal, Advance {
    }

    /** A call for a slot. */
    record Lookup(int slot) implements Step {
    }

    /**
     * A call redirected ({@code MOVED}, {@code ASK}) to a master, which the cache may not list yet
     * (one just added, owning no slot): its pool is made then, as Jedis' cache does.
     */
    record Redirect(int master) implements Step {
    }

    /** A call failed on its master (a MOVED, a connection lost): it asks for a renewal. */
    record Failed() implements Step {
    }

    /** The cluster gives a slot to another master (a failover or a resharding). */
    record Move(int slot, int master) implements Step {
    }

    /** A master restarts: the next renewal makes it a new pool. */
    record NewPool(int master) implements Step {
    }

    /** A master leaves the cluster, its slots unserved until moved. */
    record Forget(int master) implements Step {
    }

    /** The renewal asked for, if any, runs now. */
    record RunRenewal() implements Step {
    }

    record Advance(long millis) implements Step {
    }

    /** The cluster, the cache of it, and the renewals queued. Single-threaded: the property runs every step. */
    static final class Model implements ClusterNodes.SlotCache<Object> {
        final Integer[] clusterSlots = new Integer[SLOTS];
        final Object[] clusterPools = new Object[ADDRESSES.size()];
        Integer[] cachedSlots;
        Map<HostAndPort, Object> cachedPools = new HashMap<>();
        final List<Runnable> queued = new ArrayList<>();
        long nowNanos;

        Model() {
            for (int s = 0; s < SLOTS; s++) {
                clusterSlots[s] = s % 3;
            }
            for (int m = 0; m < 3; m++) {
                clusterPools[m] = new Object();
            }
            copy();
        }

        void copy() {
            cachedSlots = clusterSlots.clone();
            cachedPools = new HashMap<>();
            for (int m = 0; m < clusterPools.length; m++) {
                if (clusterPools[m] != null) {
                    cachedPools.put(ADDRESSES.get(m), clusterPools[m]);
                }
            }
        }

        @Override
        public Object join(HostAndPort address) {
            return cachedPools.computeIfAbsent(address, a -> new Object());
        }

        @Override
        public HostAndPort master(int slot) {
            Integer m = cachedSlots[slot];
            return m == null ? null : ADDRESSES.get(m);
        }

        @Override
        public Map<HostAndPort, Object> pools() {
            return new HashMap<>(cachedPools);
        }

        @Override
        public void renew() {
            copy();
        }
    }

    @Test
    void everyCallGetsWhatIsKeptForItsSlotsMasterInTheCacheAndRenewalsAreOneAtATimeAndSpaced() {
        qt(300).forAll(steps()).checkAssert(this::everyCallGetsWhatIsKeptForItsSlotsMaster);
    }

    private void everyCallGetsWhatIsKeptForItsSlotsMaster(List<Step> steps) {
        Model model = new Model();
        Map<Object, Integer> madePerPool = new HashMap<>();
        List<Made> retired = new ArrayList<>();
        ClusterNodes<Object, Made> nodes = new ClusterNodes<>(model, pool -> {
            madePerPool.merge(pool, 1, Integer::sum);
            HostAndPort address = model.cachedPools.entrySet().stream().filter(e -> e.getValue() == pool)
                    .map(Map.Entry::getKey).findFirst().orElseThrow();
            return new Made(address, pool);
        }, model.queued::add, () -> model.nowNanos);
        long gapNanos = ClusterNodes.RENEW_GAP.toNanos();
        long lastRenewalEnd = -gapNanos;
        Map<HostAndPort, Made> handedOut = new HashMap<>();

        for (Step step : steps) {
            if (step instanceof Lookup l) {
                int queuedBefore = model.queued.size();
                Made got = nodes.forSlot(l.slot());
                HostAndPort expected = model.master(l.slot());
                if (expected == null || !model.cachedPools.containsKey(expected)) {
                    assertNull(got, "no master in the cache for slot " + l.slot());
                    boolean mayRenew = queuedBefore == 0 && model.nowNanos - lastRenewalEnd >= gapNanos;
                    assertEquals(mayRenew ? 1 : queuedBefore, model.queued.size(),
                            "a renewal is asked for exactly when none is queued and the last ended a gap ago");
                } else {
                    assertNotNull(got);
                    assertEquals(expected, got.address(), "the master of slot " + l.slot() + " in the cache");
                    assertSame(model.cachedPools.get(expected), got.pool(), "kept for the master's current pool");
                    assertTrue(!retired.contains(got), "nothing kept for a replaced pool is handed out again");
                    Made before = handedOut.put(expected, got);
                    if (before != null && before.pool() == got.pool()) {
                        assertSame(before, got, "one thing kept per master and pool");
                    }
                    assertEquals(queuedBefore, model.queued.size(), "a call that finds its master asks for no renewal");
                }
            } else if (step instanceof Redirect r) {
                HostAndPort address = ADDRESSES.get(r.master());
                int queuedBefore = model.queued.size();
                Made got = nodes.forRedirection(address);
                assertNotNull(got, "a redirection's master is reached, listed in the cache or not");
                assertEquals(address, got.address());
                assertSame(model.cachedPools.get(address), got.pool(), "kept for the pool the cache has for it now");
                assertTrue(!retired.contains(got), "nothing kept for a replaced pool is handed out again");
                Made before = handedOut.put(address, got);
                if (before != null && before.pool() == got.pool()) {
                    assertSame(before, got, "one thing kept per master and pool");
                }
                assertEquals(queuedBefore, model.queued.size(), "following a redirection asks for no renewal by itself");
            } else if (step instanceof Failed) {
                int queuedBefore = model.queued.size();
                nodes.renewSoon();
                boolean mayRenew = queuedBefore == 0 && model.nowNanos - lastRenewalEnd >= gapNanos;
                assertEquals(mayRenew ? 1 : queuedBefore, model.queued.size(),
                        "a renewal is queued exactly when none is and the last ended a gap ago");
            } else if (step instanceof Move mv) {
                model.clusterSlots[mv.slot()] = mv.master();
                if (model.clusterPools[mv.master()] == null) {
                    model.clusterPools[mv.master()] = new Object();
                }
            } else if (step instanceof NewPool np) {
                if (model.clusterPools[np.master()] != null) {
                    model.clusterPools[np.master()] = new Object();
                }
            } else if (step instanceof Forget f) {
                model.clusterPools[f.master()] = null;
                for (int s = 0; s < SLOTS; s++) {
                    if (model.clusterSlots[s] != null && model.clusterSlots[s] == f.master()) {
                        model.clusterSlots[s] = null;
                    }
                }
            } else if (step instanceof RunRenewal) {
                if (!model.queued.isEmpty()) {
                    Map<HostAndPort, Object> old = new HashMap<>(model.cachedPools);
                    model.queued.remove(0).run();
                    lastRenewalEnd = model.nowNanos;
                    for (Made m : handedOut.values()) {
                        if (model.cachedPools.get(m.address()) != old.get(m.address()) && !retired.contains(m)) {
                            retired.add(m);
                        }
                    }
                    assertTrue(Arrays.equals(model.cachedSlots, model.clusterSlots), "a renewal brings the cache up to date");
                }
            } else if (step instanceof Advance a) {
                model.nowNanos += TimeUnit.MILLISECONDS.toNanos(a.millis());
            }
            assertTrue(model.queued.size() <= 1, "one renewal at a time");
        }
        madePerPool.forEach((pool, times) -> assertEquals(1, times, "made once per pool"));
    }

    static Gen<List<Step>> steps() {
        Gen<Step> lookup = ints(0, SLOTS - 1).map(Lookup::new);
        Gen<Step> move = ints(0, SLOTS - 1).zip(ints(0, ADDRESSES.size() - 1), Move::new);
        Gen<Step> newPool = ints(0, ADDRESSES.size() - 1).map(NewPool::new);
        Gen<Step> forget = ints(0, ADDRESSES.size() - 1).map(Forget::new);
        Gen<Step> redirect = ints(0, ADDRESSES.size() - 1).map(Redirect::new);
        Gen<Step> run = just(new RunRenewal());
        Gen<Step> advance = longs(1, 150).map(Advance::new);
        return lists(frequency(
                weight(8, lookup), weight(2, redirect), weight(2, just(new Failed())),
                weight(2, move), weight(1, newPool),
                weight(1, forget), weight(2, run), weight(2, advance)), 0, 60);
    }
}
