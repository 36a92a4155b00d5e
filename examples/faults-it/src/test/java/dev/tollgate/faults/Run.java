package dev.tollgate.faults;

import dev.tollgate.Decision;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * One run of the harness: a real {@code redis-server}, {@link Options#nodes} limiter nodes each
 * behind its own {@link FaultProxy} and on a clock of its own ({@link #CLOCK_OFFSETS_MICROS}: hours
 * apart), the {@link Workload} and the {@link Nemesis} for
 * {@link Options#millis}, then every fault healed and, after one circuit period, each slot client
 * asks for a slot again (liveness), and the {@link Checker} reads the history. Everything the seed
 * decides is drawn from it; thread timing is not, so a seed replays the same schedule, not the same
 * interleaving.
 */
final class Run {

    /**
     * How far each node's clock is off Redis' (the system's), by node: one exact, one three hours
     * behind, one two hours ahead (issue 28: calendar windows that a node computes must not let
     * its clock hand out more of a quota). Whole hours, so a node's in-memory fallback counts
     * in hour windows aligned with the real ones, as the checker counts them.
     */
    static final long[] CLOCK_OFFSETS_MICROS = {0, -3 * 3_600_000_000L, 2 * 3_600_000_000L};

    /** @param cluster a three-master Redis Cluster (with replicas), reached directly; else one redis-server behind proxies */
    record Options(int nodes, long millis, String failureMode, List<Nemesis.Fault> faults, boolean changes, boolean cluster) {
    }

    record Result(long seed, Options options, List<String> violations, History history) {

        String summary() {
            long admitted = history.ops().stream().filter(Op::admitted).count();
            // the quota's limits as the rolling changes put them in force: their number and order change
            List<String> quotas = new ArrayList<>();
            for (History.Reconfig r : history.reconfigs()) {
                String q = Node.QUOTA_VARIANTS.get(r.quota()).limits();
                if (quotas.isEmpty() || !quotas.get(quotas.size() - 1).equals(q)) {
                    quotas.add(q);
                }
            }
            return String.format("seed %d, failure mode %s, %d nodes" + (options.cluster() ? " on a Cluster" : "")
                    + ", %d ms: %d requests (%d admitted), %d faults, %d reloads (quota %s),"
                    + " %d violations", seed, options.failureMode(), options.nodes(), options.millis(), history.ops().size(),
                    admitted, history.events().size(), history.reconfigs().size(), String.join(" -> ", quotas),
                    violations.size());
        }
    }

    static Result run(long seed, Options o) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(seed);
        History history = new History();
        List<Node> nodes = new ArrayList<>();
        Handler logs = capture(history);
        Logger tollgate = Logger.getLogger("dev.tollgate");
        tollgate.addHandler(logs);
        try (RedisProcess redis = o.cluster() ? null : TestRedis.startProcess();
             RedisCluster cluster = o.cluster() ? RedisCluster.start() : null) {
            for (int i = 0; i < o.nodes(); i++) {
                long clock = CLOCK_OFFSETS_MICROS[i % CLOCK_OFFSETS_MICROS.length];
                if (cluster != null) {
                    nodes.add(new Node(i, null, Map.of("tollgate.redis.cluster", String.join(",", cluster.seeds()),
                            "tollgate.redis.timeout", "300ms"), o.failureMode(), Map.of(), clock));
                } else {
                    FaultProxy proxy = new FaultProxy(redis.port(), random.nextLong());
                    nodes.add(new Node(i, proxy, Map.of("tollgate.redis.uri", "redis://127.0.0.1:" + proxy.port()), o.failureMode(),
                            Map.of(), clock));
                }
            }
            Workload workload = new Workload(random.split(), nodes, history);
            Nemesis nemesis = new Nemesis(random.split(), redis, cluster, workload, nodes, history, o.failureMode(), o.faults(),
                    o.changes());
            long until = history.now() + o.millis() * 1000;
            Thread faults = new Thread(() -> {
                try {
                    nemesis.run(until);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "nemesis");
            faults.setDaemon(true);
            faults.start();
            workload.run(until);
            faults.join();
            List<String> violations = new ArrayList<>(liveness(workload, nodes, history));
            violations.addAll(new Checker(history, o.nodes(), o.failureMode()).check(workload.clients));
            return new Result(seed, o, violations, history);
        } finally {
            tollgate.removeHandler(logs);
            nodes.forEach(Node::close);
        }
    }

    /**
     * Once every fault has healed and one circuit period has passed, a slot client with nothing in
     * flight gets a slot at once; where a node died holding one of its slots, within that slot's lease.
     */
    static List<String> liveness(Workload workload, List<Node> nodes, History history) {
        Workload.sleepMicros(Nemesis.AFTERMATH_MICROS + 400_000);
        List<String> violations = new ArrayList<>();
        for (Workload.Client c : workload.clients) {
            if (c.kind() != Workload.Kind.SLOTS) {
                continue;
            }
            int node = c.id() % nodes.size();
            long start = history.now();
            long allowed = start + 200_000;
            for (Event e : history.events()) {
                boolean heldThere = history.ops().stream().anyMatch(o -> o.client == c.id() && o.node == e.node()
                        && o.counted() && o.releaseInvoke < 0 && o.complete <= e.start());
                if (e.allowance() == Allowance.NODE_KILLED && heldThere) {
                    allowed = Math.max(allowed, e.start() + Node.LEASE_MICROS + 300_000);
                }
            }
            Op got = null;
            while (history.now() < start + Node.LEASE_MICROS + 1_500_000) {
                Op op = workload.request(c, node, "slots");
                if (op.counted() && op.source == Decision.Source.REDIS) {
                    workload.release(op);
                    got = op;
                    break;
                }
                Workload.sleepMicros(50_000);
            }
            if (got == null || got.complete > allowed) {
                violations.add(String.format("client %d waited %s for a slot after the faults healed (allowed until %.3f s,"
                        + " from %.3f s); no node that held one of its slots died later than a lease before", c.id(),
                        got == null ? "in vain" : String.format("%.3f s", (got.complete - start) / 1e6), allowed / 1e6,
                        start / 1e6) + orphans(c.id(), history));
            }
        }
        return violations;
    }

    private static String orphans(int client, History history) {
        StringBuilder s = new StringBuilder("\n  its last requests for a slot:");
        List<Op> mine = history.ops().stream().filter(o -> o.client == client && o.counted()).toList();
        mine.subList(Math.max(0, mine.size() - 8), mine.size()).forEach(o -> s.append("\n    ").append(o));
        s.append("\n  the last faults:");
        List<Event> events = history.events();
        events.subList(Math.max(0, events.size() - 4), events.size()).forEach(e -> s.append("\n    ").append(e));
        return s.toString();
    }

    /** Every line Tollgate logs at INFO or above, formatted as a handler would write it. */
    private static Handler capture(History history) {
        Handler h = new Handler() {
            private final SimpleFormatter format = new SimpleFormatter();

            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.INFO.intValue()) {
                    history.log(format.format(r));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        h.setLevel(Level.ALL);
        return h;
    }
}
