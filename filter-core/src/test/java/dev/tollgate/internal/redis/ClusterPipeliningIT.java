package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.testing.Alone;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls pipelined per master of a Redis Cluster: concurrent calls for keys on three masters each
 * get their own answer, reach their own master (none is redirected), and leave in batches; a master
 * killed mid-load fails only its own calls (and those Redis refuses while it does not cover every slot),
 * each within the budget, and its keys are served again once its replica takes over.
 */
@Alone
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterPipeliningIT {

    /** Refills 0.0116 tokens a second: over one test, the remaining count moves by the calls alone. */
    private static final List<Limit> SLOW = Limit.parse("1000/day burst 1000");

    static RedisSettings settings(RedisCluster cluster, Duration timeout) {
        return RedisSettings.builder(new RedisSettings.Cluster(cluster.seeds())).timeout(timeout).poolSize(8)
                .circuit(3, Duration.ofSeconds(1)).autoPipelining(true).build();
    }

    /** {@code perMaster} bucket keys on each master, in master order. */
    static Map<RedisProcess, List<String>> keysOnEachMaster(RedisCluster cluster, int perMaster) {
        Map<RedisProcess, List<String>> keys = new HashMap<>();
        for (RedisProcess m : cluster.masters()) {
            keys.put(m, new ArrayList<>());
        }
        for (int i = 0; keys.values().stream().anyMatch(l -> l.size() < perMaster); i++) {
            String key = BucketKeys.key("tollgate:", "api", BucketKeys.client("ip=198.51.100." + i));
            List<String> mine = keys.get(cluster.masterFor(key));
            if (mine.size() < perMaster) {
                mine.add(key);
            }
        }
        return keys;
    }

    private static long remaining(RedisStore store, String key) {
        return Replies.flat(store.acquire(List.of(BucketRequest.take(key, SLOW, 1, true))))[0];
    }

    @Test
    void concurrentCallsForKeysOnThreeMastersAreEachAnsweredByTheirMasterAndLeaveInBatches() throws Exception {
        int perMaster = 16;
        int callsPerKey = 200;
        try (RedisCluster cluster = RedisCluster.start();
             JedisPort port = JedisPort.connect(settings(cluster, Duration.ofSeconds(2)));
             RedisStore store = new RedisStore(port)) {
            Map<RedisProcess, List<String>> keys = keysOnEachMaster(cluster, perMaster);
            keys.values().forEach(l -> store.load(l.get(0)));
            List<String> all = keys.values().stream().flatMap(List::stream).toList();
            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (String key : all) {
                threads.add(started(() -> {
                    try {
                        start.await();
                        for (int k = 1; k <= callsPerKey; k++) {
                            long r = remaining(store, key);
                            if (r != 1000 - k) {
                                wrong.add(key + " call " + k + " got " + r);
                            }
                        }
                    } catch (Exception e) {
                        wrong.add(key + ": " + e);
                    }
                }));
            }
            long before = port.exchanges();
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            long calls = (long) all.size() * callsPerKey;
            long exchanges = port.exchanges() - before;
            System.out.printf("[cluster-pipelining] %d calls from %d threads over 3 masters in %d round trips (%.1f calls each)%n",
                    calls, all.size(), exchanges, (double) calls / exchanges);
            assertTrue(wrong.isEmpty(), "every call answered with its own key's count: " + wrong.stream().limit(5).toList());
            for (Map.Entry<RedisProcess, List<String>> e : keys.entrySet()) {
                String stats = e.getKey().command("INFO", "commandstats");
                assertEquals((long) perMaster * callsPerKey, stat(stats, "cmdstat_evalsha", "calls")
                        + stat(stats, "cmdstat_eval", "calls"), "every call for a key of " + e.getKey().address() + " ran there");
                assertEquals(0, stat(stats, "cmdstat_evalsha", "rejected_calls"), "no call was sent to the wrong master");
            }
            assertTrue(exchanges * 2 <= calls, "calls left together: " + calls + " calls in " + exchanges + " round trips");
        }
    }

    @Test
    void aMasterKilledMidLoadFailsItsCallsWithinTheBudgetAndItsKeysAreServedAfterTheFailover() throws Exception {
        Duration budget = Duration.ofMillis(500);
        long slackNanos = TimeUnit.MILLISECONDS.toNanos(500); // a shared 2-core machine stalls threads
        try (RedisCluster cluster = RedisCluster.start();
             JedisPort port = JedisPort.connect(settings(cluster, budget));
             RedisStore store = new RedisStore(port)) {
            Map<RedisProcess, List<String>> keys = keysOnEachMaster(cluster, 8);
            keys.values().forEach(l -> store.load(l.get(0)));
            RedisProcess victim = cluster.masters().get(0);
            AtomicLong worstNanos = new AtomicLong();
            AtomicLong victimFailures = new AtomicLong();
            AtomicLong othersDown = new AtomicLong();
            ConcurrentLinkedQueue<String> othersFailed = new ConcurrentLinkedQueue<>();
            AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
            Map<String, Boolean> lastOk = new java.util.concurrent.ConcurrentHashMap<>();
            List<Thread> threads = new ArrayList<>();
            for (Map.Entry<RedisProcess, List<String>> e : keys.entrySet()) {
                boolean onVictim = e.getKey() == victim;
                for (String key : e.getValue()) {
                    threads.add(started(() -> {
                        while (System.nanoTime() < stopAt.get()) {
                            long t0 = System.nanoTime();
                            boolean ok;
                            try {
                                remaining(store, key);
                                ok = true;
                            } catch (RuntimeException failed) {
                                ok = false;
                                if (onVictim) {
                                    victimFailures.incrementAndGet();
                                } else if (String.valueOf(failed.getMessage()).startsWith("CLUSTERDOWN")) {
                                    othersDown.incrementAndGet();
                                } else {
                                    othersFailed.add(key + ": " + failed);
                                }
                            }
                            worstNanos.accumulateAndGet(System.nanoTime() - t0, Math::max);
                            lastOk.put(key, ok);
                            if (!ok) {
                                // a call to a dead master fails at once: pace them, or they take the two cores
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                            }
                        }
                    }));
                }
            }
            Thread.sleep(1_000); // load running on all three masters
            cluster.killMaster(victim);
            cluster.awaitFailover(victim, Duration.ofSeconds(30));
            stopAt.set(System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
            for (Thread t : threads) {
                t.join();
            }
            System.out.printf("[cluster-pipelining] master killed: %d calls failed for its keys, %d for the others by CLUSTERDOWN"
                    + " and %d otherwise; worst call %.1f ms (budget %d ms)%n", victimFailures.get(), othersDown.get(), othersFailed.size(),
                    worstNanos.get() / 1e6, budget.toMillis());
            assertTrue(victimFailures.get() > 0, "the killed master's calls failed until its replica took over");
            // a cluster that requires full coverage (the default) refuses every slot until the failover:
            // Redis' CLUSTERDOWN, not a connection or a timeout of this client
            assertTrue(othersFailed.isEmpty(), "the other masters' calls failed only by Redis' CLUSTERDOWN: " + othersFailed.stream().limit(3).toList());
            assertTrue(worstNanos.get() <= budget.toNanos() + slackNanos, "no call waited past its budget: " + worstNanos.get() / 1e6 + " ms");
            assertTrue(lastOk.values().stream().allMatch(ok -> ok), "two seconds after the failover every key is served: " + lastOk);
        }
    }

    private static Thread started(Runnable r) {
        Thread t = new Thread(r);
        t.start();
        return t;
    }

    /** A field of one command's line in {@code INFO commandstats}, 0 if the command never ran. */
    static long stat(String info, String command, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(command + ":")) {
                for (String kv : line.substring(command.length() + 1).split(",")) {
                    if (kv.startsWith(field + "=")) {
                        return Long.parseLong(kv.substring(field.length() + 1));
                    }
                }
            }
        }
        return 0;
    }
}
