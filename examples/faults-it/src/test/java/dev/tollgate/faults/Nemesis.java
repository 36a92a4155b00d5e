package dev.tollgate.faults;

import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Injects faults and changes on a schedule drawn from the run's seed, and records each as an
 * {@link Event} with the allowance docs/guarantees.md grants it. Two threads: one for faults (one at a
 * time: Redis killed and restarted empty, Redis paused, a proxy's latency, dropped replies, resets,
 * black hole or slow close on some nodes, a node killed and started again), one for operator
 * changes (a new variant of the limits and of the concurrency, put in force node by node with
 * reloads at different moments). Everything is healed before {@link #run} returns.
 */
final class Nemesis {

    /** What the fault thread can do. */
    enum Fault {
        REDIS_RESTART, REDIS_PAUSE, LATENCY, SLOW_REPLIES, DROP_REPLIES, RESET, BLACK_HOLE, SLOW_CLOSE, NODE_KILL,
        /** Cluster only: a master killed (at most once a run: its replica has none then), its replica promoted. */
        FAILOVER,
        /** Cluster only: the slot of a client's keys migrated to another master. */
        MIGRATION;

        static final List<Fault> STANDALONE = List.of(REDIS_RESTART, REDIS_PAUSE, LATENCY, SLOW_REPLIES, DROP_REPLIES,
                RESET, BLACK_HOLE, SLOW_CLOSE, NODE_KILL);
        static final List<Fault> CLUSTER = List.of(FAILOVER, MIGRATION, MIGRATION, NODE_KILL);
    }

    /** How long after a heal the nodes may still decide by the failure mode: the circuit's open period and a call's budget. */
    static final long AFTERMATH_MICROS = 300_000 + 2 * 150_000;

    private final SplittableRandom random;
    private final RedisProcess redis;
    private final RedisCluster cluster;
    private final Workload workload;
    private boolean failedOver;
    private final List<Node> nodes;
    private final History history;
    private final boolean local;
    private final List<Fault> faults;
    private final boolean changes;

    Nemesis(SplittableRandom random, RedisProcess redis, RedisCluster cluster, Workload workload, List<Node> nodes,
            History history, String failureMode, List<Fault> faults, boolean changes) {
        this.random = random;
        this.redis = redis;
        this.cluster = cluster;
        this.workload = workload;
        this.nodes = nodes;
        this.history = history;
        this.local = failureMode.equals("local");
        this.faults = faults;
        this.changes = changes;
    }

    /** Runs faults and changes from 0.5 s until {@code untilMicros}, then heals everything. */
    void run(long untilMicros) throws InterruptedException {
        SplittableRandom faultRandom = random.split();
        SplittableRandom changeRandom = random.split();
        Thread f = new Thread(() -> faults(faultRandom, untilMicros), "nemesis-faults");
        Thread c = new Thread(() -> changes(changeRandom, untilMicros), "nemesis-changes");
        f.setDaemon(true);
        c.setDaemon(true);
        f.start();
        c.start();
        f.join();
        c.join();
    }

    private Allowance unreachable() {
        return local ? Allowance.REDIS_UNREACHABLE_LOCAL : Allowance.REDIS_UNREACHABLE;
    }

    private void faults(SplittableRandom r, long until) {
        Workload.sleepMicros(500_000);
        while (!faults.isEmpty() && history.now() < until - 2_500_000) {
            Fault fault = faults.get(r.nextInt(faults.size()));
            long length = 200_000 + r.nextLong(1_300_000);
            List<Node> some = someNodes(r);
            long start = history.now();
            switch (fault) {
                case FAILOVER -> {
                    if (failedOver) {
                        break;
                    }
                    failedOver = true;
                    String key = workload.storageKey(workload.clients.get(r.nextInt(workload.clients.size())));
                    RedisProcess killed = cluster.killMasterOf(key);
                    cluster.awaitFailover(killed, java.time.Duration.ofSeconds(30));
                    long promoted = history.now();
                    history.add(new Event("Cluster master killed, replica promoted", -1, start, promoted + AFTERMATH_MICROS,
                            unreachable()));
                    history.add(new Event("Cluster master killed, replica promoted", -1, start, promoted,
                            Allowance.MASTER_FAILOVER));
                }
                case MIGRATION -> {
                    String key = workload.storageKey(workload.clients.get(r.nextInt(workload.clients.size())));
                    int slot = RedisCluster.slot(key);
                    RedisProcess source = cluster.masterOfSlot(slot);
                    List<RedisProcess> others = cluster.masters().stream().filter(m -> m != source).toList();
                    RedisProcess target = others.get(r.nextInt(others.size()));
                    cluster.beginMigration(slot, target);
                    Workload.sleepMicros(length / 2); // requests meet the slot half moved: ASK, TRYAGAIN
                    String listed = source.command("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "1000");
                    for (String k : listed.isBlank() ? new String[0] : listed.split("\\s+")) {
                        cluster.migrateKeys(source, target, k);
                        Workload.sleepMicros(r.nextLong(100_000));
                    }
                    cluster.finishMigration(slot, source, target);
                    history.add(new Event("slot " + slot + " migrated", -1, start, history.now(), Allowance.SLOT_MIGRATION));
                }
                case REDIS_RESTART -> {
                    redis.kill();
                    Workload.sleepMicros(length);
                    long restart = history.now();
                    redis.restart();
                    history.add(new Event("Redis killed, restarted empty", -1, start, history.now() + AFTERMATH_MICROS,
                            unreachable()));
                    history.add(new Event("Redis restarted empty", -1, restart, history.now(), Allowance.REDIS_RESTARTED_EMPTY));
                }
                case REDIS_PAUSE -> {
                    redis.pause();
                    Workload.sleepMicros(length);
                    redis.resume();
                    history.add(new Event("Redis paused (SIGSTOP)", -1, start, history.now() + AFTERMATH_MICROS, unreachable()));
                }
                case NODE_KILL -> {
                    Node node = some.get(0);
                    node.kill();
                    history.add(new Event("node killed", node.id, start, start, Allowance.NODE_KILLED));
                    Workload.sleepMicros(length);
                    node.restart();
                }
                default -> {
                    FaultProxy.Fault proxyFault = switch (fault) {
                        case LATENCY, SLOW_REPLIES -> FaultProxy.Fault.LATENCY;
                        case DROP_REPLIES -> FaultProxy.Fault.DROP_REPLIES;
                        case RESET -> FaultProxy.Fault.RESET;
                        case BLACK_HOLE -> FaultProxy.Fault.BLACK_HOLE;
                        default -> FaultProxy.Fault.SLOW_CLOSE;
                    };
                    // within the 150 ms budget, or well past it
                    long latency = fault == Fault.LATENCY ? 5_000 + r.nextLong(40_000) : 200_000 + r.nextLong(200_000);
                    long jitter = fault == Fault.LATENCY ? r.nextLong(20_000) : r.nextLong(100_000);
                    for (Node node : some) {
                        node.proxy.set(proxyFault, latency, jitter);
                    }
                    Workload.sleepMicros(length);
                    for (Node node : some) {
                        node.proxy.heal();
                    }
                    long end = history.now() + AFTERMATH_MICROS;
                    for (Node node : some) {
                        history.add(new Event("proxy " + proxyFault + (fault == Fault.LATENCY || fault == Fault.SLOW_REPLIES
                                ? " " + latency / 1000 + " ms +" + jitter / 1000 + " ms" : ""), node.id, start, end,
                                fault == Fault.LATENCY ? Allowance.LATENCY : unreachable()));
                    }
                }
            }
            Workload.sleepMicros(r.nextLong(800_000));
        }
    }

    private List<Node> someNodes(SplittableRandom r) {
        List<Node> shuffled = new ArrayList<>(nodes);
        for (int i = shuffled.size() - 1; i > 0; i--) {
            java.util.Collections.swap(shuffled, i, r.nextInt(i + 1));
        }
        return shuffled.subList(0, 1 + r.nextInt(shuffled.size()));
    }

    private void changes(SplittableRandom r, long until) {
        if (!changes) {
            return;
        }
        Workload.sleepMicros(300_000 + r.nextLong(1_000_000));
        while (history.now() < until - 2_000_000) {
            int api = r.nextInt(Node.API_VARIANTS.size());
            int slots = r.nextInt(Node.SLOT_VARIANTS.size());
            int quota = r.nextInt(Node.QUOTA_VARIANTS.size());
            long start = history.now();
            List<Node> order = someNodes(r);
            List<Node> all = new ArrayList<>(order);
            for (Node n : nodes) {
                if (!all.contains(n)) {
                    all.add(n);
                }
            }
            for (Node node : all) {
                node.variants(api, slots, quota);
                node.reload();
                history.add(new History.Reconfig(history.now(), node.id, api, slots, quota));
                Workload.sleepMicros(100_000 + r.nextLong(1_200_000));
            }
            history.add(new Event("rolling change to api " + Rate.text(Node.API_VARIANTS.get(api)) + ", concurrency "
                    + Node.SLOT_VARIANTS.get(slots) + ", quota " + Node.QUOTA_VARIANTS.get(quota), -1, start, history.now(),
                    Allowance.ROLLING_CHANGE));
            Workload.sleepMicros(r.nextLong(1_500_000));
        }
    }
}
