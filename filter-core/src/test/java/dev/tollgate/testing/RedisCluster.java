package dev.tollgate.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A local Redis Cluster of three masters, each with one replica: six {@link RedisProcess}es on
 * loopback, joined and given their slots with raw commands (no {@code redis-cli}, which the
 * embedded Redis 6.2 fallback does not have), so it works with any {@code redis-server} that
 * {@link TestRedis} finds.
 *
 * <p>Each node runs with:
 * <ul>
 *   <li>{@code --cluster-enabled yes --cluster-config-file nodes.conf}: the file lands in the
 *       node's own temporary directory ({@code --dir} is the process's working directory);</li>
 *   <li>{@code --cluster-node-timeout 1000}: a dead master is flagged within about a second, so a
 *       failover takes seconds, not the 15 s of the default;</li>
 *   <li>{@code --cluster-replica-validity-factor 0}: a replica may always stand for election,
 *       however long it was cut off; on a shared, slow machine a replica can miss pings for a
 *       while, and a test that kills a master must see a failover, not a cluster that stays down;</li>
 *   <li>{@code --repl-diskless-sync-delay 0}: a replica's first sync starts at once instead of
 *       waiting 5 s for more replicas to join it.</li>
 * </ul>
 * {@code cluster-require-full-coverage} and {@code cluster-allow-reads-when-down} keep Redis'
 * defaults (the whole cluster refuses commands while a slot has no master; no reads when down):
 * what production clusters run, so tests see the real outage window of a failover. Tests that
 * want otherwise pass their own {@code --option value} pairs to {@link #start(String...)}.
 *
 * <p>Every wait is bounded and says, on timeout, what it was still waiting for.
 */
public final class RedisCluster implements AutoCloseable {

    public static final int SLOTS = 16384;
    public static final int NODE_TIMEOUT_MILLIS = 1000;
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(40);
    private static final int MASTERS = 3;

    private final List<RedisProcess> nodes;
    /** Node id by port; ids never change, roles do. */
    private final Map<Integer, String> ids = new HashMap<>();
    private final String version;
    private final Map<Integer, Long> killedAtNanos = new HashMap<>();
    /** The master each replica was made to follow, by node id. */
    private final Map<String, String> replicaOf = new HashMap<>();

    private RedisCluster(List<RedisProcess> nodes, String version) {
        this.nodes = nodes;
        this.version = version;
    }

    /**
     * Starts six nodes, joins them, gives the 16384 slots to the first three and makes each of
     * the others replicate one of them; returns when every node reports {@code cluster_state:ok}
     * and every replica is attached and in sync.
     *
     * @param extraNodeArgs further {@code --option value} pairs for every node
     */
    public static RedisCluster start(String... extraNodeArgs) {
        return start(null, extraNodeArgs);
    }

    /**
     * Six ports for {@link #start(List, String...)}, each with its cluster bus port ({@code +10000})
     * free now: a test can configure a client with them before any node runs.
     */
    public static List<Integer> choosePorts() {
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < 2 * MASTERS) {
            int p = portWithFreeBusPort();
            if (!ports.contains(p) && !ports.contains(p + 10_000) && !ports.contains(p - 10_000)) {
                ports.add(p);
            }
        }
        return ports;
    }

    /**
     * As {@link #start(String...)}, on the given six ports (from {@link #choosePorts()}); the first
     * three become the masters.
     */
    public static RedisCluster start(List<Integer> ports, String... extraNodeArgs) {
        if (ports != null && ports.size() != 2 * MASTERS) {
            throw new IllegalArgumentException("a cluster of this fixture has " + 2 * MASTERS + " nodes, not " + ports.size());
        }
        long t0 = System.nanoTime();
        List<RedisProcess> nodes = new ArrayList<>();
        RedisCluster cluster = null;
        try {
            for (int i = 0; i < 2 * MASTERS; i++) {
                nodes.add(ports == null ? startNode(extraNodeArgs) : startNode(ports.get(i), extraNodeArgs));
            }
            long started = System.nanoTime();
            cluster = new RedisCluster(nodes, info(nodes.get(0), "server", "redis_version"));
            cluster.form();
            long done = System.nanoTime();
            System.out.printf("[redis-cluster] %s (redis %s): 6 nodes started in %d ms, cluster formed in %d ms,"
                            + " set-up %d ms in all; nodes %s%n", TestRedis.binaryKind(), cluster.version,
                    (started - t0) / 1_000_000, (done - started) / 1_000_000, (done - t0) / 1_000_000, cluster.seeds());
            return cluster;
        } catch (RuntimeException | Error e) {
            if (cluster != null) {
                cluster.close();
            } else {
                nodes.forEach(RedisProcess::close);
            }
            throw e;
        }
    }

    /** Every node's {@code host:port}, masters first as started: what a cluster client takes as seeds. */
    public List<String> seeds() {
        List<String> out = new ArrayList<>();
        for (RedisProcess n : nodes) {
            out.add(n.address());
        }
        return out;
    }

    /** The six processes, in start order (the first three started as masters). */
    public List<RedisProcess> nodes() {
        return List.copyOf(nodes);
    }

    /** The redis-server version the nodes run, e.g. {@code 7.0.15}. */
    public String version() {
        return version;
    }

    /** The live masters, as the cluster sees them now. */
    public List<RedisProcess> masters() {
        List<RedisProcess> out = new ArrayList<>();
        for (NodeInfo n : topology()) {
            if (n.master() && !n.failed()) {
                out.add(byPort(n.port));
            }
        }
        return out;
    }

    /** The hash slot of a key, as Redis computes it: CRC16/XMODEM of the hash tag (or the key), mod 16384. */
    public static int slot(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = k.length;
        for (int i = 0; i < k.length; i++) {
            if (k[i] == '{') {
                for (int j = i + 1; j < k.length; j++) {
                    if (k[j] == '}') {
                        if (j > i + 1) { // "{}" is no tag: the whole key is hashed
                            start = i + 1;
                            end = j;
                        }
                        break;
                    }
                }
                break;
            }
        }
        return crc16(k, start, end) & (SLOTS - 1);
    }

    static int crc16(byte[] b, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (b[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc;
    }

    /** The live master that owns the key's slot now. */
    public RedisProcess masterFor(String key) {
        int slot = slot(key);
        for (NodeInfo n : topology()) {
            if (n.master() && !n.failed() && n.owns(slot)) {
                return byPort(n.port);
            }
        }
        throw new IllegalStateException("no live master owns slot " + slot + " of key '" + key + "': " + topologyText());
    }

    /** SIGKILLs the master that owns the key's slot; returns it. */
    public RedisProcess killMasterOf(String key) {
        RedisProcess m = masterFor(key);
        killMaster(m);
        return m;
    }

    /** SIGKILLs a master, as in a crash. */
    public void killMaster(RedisProcess master) {
        NodeInfo n = node(master);
        if (n == null || !n.master()) {
            throw new IllegalArgumentException(master.address() + " is not a master now: " + topologyText());
        }
        master.kill();
        killedAtNanos.put(master.port(), System.nanoTime());
        System.out.printf("[redis-cluster] master %s (slots %s) killed%n", master.address(), n.slotsText());
    }

    /**
     * Waits until a replica of the killed master is a master owning its slots, every live node
     * agrees and reports {@code cluster_state:ok}; returns the promoted replica.
     */
    public RedisProcess awaitFailover(RedisProcess killed, Duration timeout) {
        String deadId = ids.get(killed.port());
        Long killedAt = killedAtNanos.get(killed.port());
        if (deadId == null || killedAt == null) {
            throw new IllegalArgumentException(killed.address() + " was not killed by killMaster");
        }
        RedisProcess[] promoted = new RedisProcess[1];
        await("a replica of " + killed.address() + " promoted and cluster_state:ok on every live node", timeout, () -> {
            String promotedId = null;
            for (RedisProcess p : nodes) {
                if (!p.alive()) {
                    continue;
                }
                String state = clusterInfo(p, "cluster_state");
                if (!"ok".equals(state)) {
                    return p.address() + " says cluster_state:" + state;
                }
                List<NodeInfo> view = parseNodes(p.command("CLUSTER", "NODES"));
                NodeInfo dead = find(view, deadId);
                if (dead == null || !dead.failed()) {
                    return p.address() + " does not flag " + killed.address() + " as failed yet";
                }
                if (dead.owns()) {
                    return p.address() + " still gives slots to the dead " + killed.address();
                }
                if (assigned(view) != SLOTS) {
                    return p.address() + " sees " + assigned(view) + " slots assigned to live masters";
                }
                NodeInfo winner = null;
                for (NodeInfo n : view) {
                    if (n.master() && !n.failed() && n.owns() && !ids.get(n.port).equals(deadId)
                            && startedAsReplicaOf(n.id, deadId)) {
                        winner = n;
                    }
                }
                if (winner == null) {
                    return p.address() + " sees no former replica of " + killed.address() + " as master";
                }
                if (promotedId != null && !promotedId.equals(winner.id)) {
                    return "the nodes disagree on the new master";
                }
                promotedId = winner.id;
                promoted[0] = byPort(winner.port);
            }
            return null;
        });
        System.out.printf("[redis-cluster] failover: %s killed, replica %s promoted and cluster_state:ok after %d ms%n",
                killed.address(), promoted[0].address(), (System.nanoTime() - killedAt) / 1_000_000);
        return promoted[0];
    }

    /**
     * Starts one more node and has it meet the cluster, as an operator adds a master before
     * resharding: a master with no slots (so no cluster client's slot cache names it yet) until
     * slots are migrated to it. Returns when every node knows it and it sees every slot served
     * ({@code cluster_state:ok}: before that it refuses what is migrated to it); closed with the cluster.
     */
    public RedisProcess addMaster() {
        RedisProcess added = startNode();
        nodes.add(added);
        ids.put(added.port(), ok(added, "CLUSTER", "MYID"));
        RedisProcess first = nodes.get(0);
        ok(added, "CLUSTER", "MEET", first.host(), Integer.toString(first.port()));
        await("every node to know the added " + added.address(), SETUP_TIMEOUT, () -> {
            for (RedisProcess p : nodes) {
                List<NodeInfo> view = parseNodes(p.command("CLUSTER", "NODES"));
                NodeInfo n = find(view, ids.get(added.port()));
                if (n == null || n.flags.contains("handshake") || n.flags.contains("noaddr")) {
                    return p.address() + " does not know " + added.address() + " yet";
                }
            }
            String state = clusterInfo(added, "cluster_state");
            List<NodeInfo> view = parseNodes(added.command("CLUSTER", "NODES"));
            if (!"ok".equals(state) || assigned(view) != SLOTS) {
                return added.address() + " says cluster_state:" + state + " and sees " + assigned(view) + " slots assigned";
            }
            return null;
        });
        System.out.printf("[redis-cluster] master %s added (no slots)%n", added.address());
        return added;
    }

    /** The cluster's id of a node (what {@code CLUSTER SETSLOT} names it by). */
    public String id(RedisProcess node) {
        String id = ids.get(node.port());
        if (id == null) {
            throw new IllegalArgumentException(node.address() + " is not a node of this cluster");
        }
        return id;
    }

    /**
     * Opens the migration of {@code slot} from its master to {@code target}, as
     * {@code redis-cli --cluster reshard} does before it moves keys: {@code IMPORTING} on the
     * target, then {@code MIGRATING} on the source. Returns the source.
     */
    public RedisProcess beginMigration(int slot, RedisProcess target) {
        RedisProcess source = masterOfSlot(slot);
        ok(target, "CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", id(source));
        ok(source, "CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", id(target));
        return source;
    }

    /** Moves keys of a migrating slot from {@code source} to {@code target} ({@code MIGRATE ... KEYS}). */
    public void migrateKeys(RedisProcess source, RedisProcess target, String... keys) {
        String[] cmd = new String[6 + 1 + keys.length];
        cmd[0] = "MIGRATE";
        cmd[1] = target.host();
        cmd[2] = Integer.toString(target.port());
        cmd[3] = "";
        cmd[4] = "0";
        cmd[5] = "5000";
        cmd[6] = "KEYS";
        System.arraycopy(keys, 0, cmd, 7, keys.length);
        ok(source, cmd);
    }

    /**
     * Ends the migration of {@code slot}: {@code SETSLOT NODE} on the target, then the source,
     * then every other master, as {@code redis-cli} does; returns when every node sees the target
     * owning the slot.
     */
    public void finishMigration(int slot, RedisProcess source, RedisProcess target) {
        String s = Integer.toString(slot);
        ok(target, "CLUSTER", "SETSLOT", s, "NODE", id(target));
        ok(source, "CLUSTER", "SETSLOT", s, "NODE", id(target));
        for (NodeInfo n : topology()) {
            RedisProcess p = byPort(n.port);
            if (n.master() && !n.failed() && p != source && p != target) {
                ok(p, "CLUSTER", "SETSLOT", s, "NODE", id(target));
            }
        }
        await("every node to see " + target.address() + " owning slot " + slot, SETUP_TIMEOUT, () -> {
            for (RedisProcess p : nodes) {
                if (!p.alive()) {
                    continue;
                }
                NodeInfo t = find(parseNodes(p.command("CLUSTER", "NODES")), id(target));
                if (t == null || !t.owns(slot)) {
                    return p.address() + " does not see it yet";
                }
            }
            return null;
        });
    }

    /** The live master that owns {@code slot} now. */
    public RedisProcess masterOfSlot(int slot) {
        for (NodeInfo n : topology()) {
            if (n.master() && !n.failed() && n.owns(slot)) {
                return byPort(n.port);
            }
        }
        throw new IllegalStateException("no live master owns slot " + slot + ": " + topologyText());
    }

    @Override
    public void close() {
        for (RedisProcess n : nodes) {
            n.close();
        }
    }

    // ---- forming the cluster ----

    private boolean startedAsReplicaOf(String id, String masterId) {
        return masterId.equals(replicaOf.get(id));
    }

    private void form() {
        for (int i = 0; i < nodes.size(); i++) {
            RedisProcess n = nodes.get(i);
            String id = ok(n, "CLUSTER", "MYID");
            ids.put(n.port(), id);
            // Distinct config epochs before the nodes meet, as redis-cli --cluster create does,
            // so that no epoch collision has to be resolved before the cluster settles.
            ok(n, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        RedisProcess first = nodes.get(0);
        for (int i = 1; i < nodes.size(); i++) {
            ok(nodes.get(i), "CLUSTER", "MEET", first.host(), Integer.toString(first.port()));
        }
        await("all six nodes to know each other", SETUP_TIMEOUT, () -> {
            for (RedisProcess p : nodes) {
                List<NodeInfo> view = parseNodes(p.command("CLUSTER", "NODES"));
                if (view.size() != nodes.size()) {
                    return p.address() + " knows " + view.size() + " nodes";
                }
                for (NodeInfo n : view) {
                    if (n.flags.contains("handshake") || n.flags.contains("noaddr")) {
                        return p.address() + " is still in handshake with " + n.id;
                    }
                }
            }
            return null;
        });
        boolean ranges = major(version) >= 7;
        for (int m = 0; m < MASTERS; m++) {
            int from = m * SLOTS / MASTERS;
            int to = (m + 1) * SLOTS / MASTERS - 1;
            RedisProcess master = nodes.get(m);
            if (ranges) {
                ok(master, "CLUSTER", "ADDSLOTSRANGE", Integer.toString(from), Integer.toString(to));
            } else {
                for (int batchStart = from; batchStart <= to; batchStart += 1000) {
                    int batchEnd = Math.min(to, batchStart + 999);
                    String[] cmd = new String[2 + batchEnd - batchStart + 1];
                    cmd[0] = "CLUSTER";
                    cmd[1] = "ADDSLOTS";
                    for (int s = batchStart; s <= batchEnd; s++) {
                        cmd[2 + s - batchStart] = Integer.toString(s);
                    }
                    ok(master, cmd);
                }
            }
        }
        for (int r = 0; r < MASTERS; r++) {
            RedisProcess replica = nodes.get(MASTERS + r);
            String masterId = ids.get(nodes.get(r).port());
            // The replica must have heard of its master through gossip before it can follow it.
            await(replica.address() + " to know master " + masterId, SETUP_TIMEOUT, () -> {
                String reply = replica.command("CLUSTER", "REPLICATE", masterId);
                return "OK".equals(reply) ? null : reply;
            });
            replicaOf.put(ids.get(replica.port()), masterId);
        }
        await("cluster_state:ok on every node, three masters owning all slots, each with an attached replica in sync",
                SETUP_TIMEOUT, () -> {
                    for (RedisProcess p : nodes) {
                        String state = clusterInfo(p, "cluster_state");
                        if (!"ok".equals(state)) {
                            return p.address() + " says cluster_state:" + state;
                        }
                        List<NodeInfo> view = parseNodes(p.command("CLUSTER", "NODES"));
                        if (assigned(view) != SLOTS) {
                            return p.address() + " sees " + assigned(view) + " slots assigned";
                        }
                        for (NodeInfo n : view) {
                            String expectedMaster = replicaOf.get(n.id);
                            if (expectedMaster != null && (!n.flags.contains("slave") || !expectedMaster.equals(n.masterId))) {
                                return p.address() + " does not see " + n.address + " as replica of " + expectedMaster
                                        + " (flags " + n.flags + ", master " + n.masterId + ")";
                            }
                        }
                    }
                    for (int r = 0; r < MASTERS; r++) {
                        RedisProcess replica = nodes.get(MASTERS + r);
                        String link = info(replica, "replication", "master_link_status");
                        String syncing = info(replica, "replication", "master_sync_in_progress");
                        if (!"up".equals(link) || !"0".equals(syncing)) {
                            return replica.address() + " has master_link_status:" + link + ", master_sync_in_progress:" + syncing;
                        }
                    }
                    return null;
                });
    }

    private static RedisProcess startNode(String... extraArgs) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return startNode(portWithFreeBusPort(), extraArgs);
            } catch (RuntimeException e) {
                last = e; // the port was taken between the check and the start: try another
            }
        }
        throw last;
    }

    private static RedisProcess startNode(int port, String... extraArgs) {
        List<String> args = new ArrayList<>(List.of(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MILLIS),
                "--cluster-replica-validity-factor", "0",
                "--repl-diskless-sync-delay", "0"));
        args.addAll(List.of(extraArgs));
        return TestRedis.startProcess(port, null, args.toArray(new String[0]));
    }

    private static final Random PORTS = new Random();

    /**
     * A port p such that p and p + 10000 (the cluster bus, which Redis 6.2 cannot move) are both
     * free, below the usual ephemeral range so that outgoing connections are unlikely to take them.
     */
    public static int portWithFreeBusPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int p = 10_000 + PORTS.nextInt(12_000);
            if (bindable(p) && bindable(p + 10_000)) {
                return p;
            }
        }
        throw new IllegalStateException("no free port p with p + 10000 free in 10000..22000");
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // ---- looking at the cluster ----

    /** One line of {@code CLUSTER NODES}. */
    private record NodeInfo(String id, String address, int port, Set<String> flags, String masterId, List<int[]> slots) {
        boolean master() {
            return flags.contains("master");
        }

        boolean failed() {
            return flags.contains("fail");
        }

        boolean owns() {
            return !slots.isEmpty();
        }

        boolean owns(int slot) {
            for (int[] r : slots) {
                if (slot >= r[0] && slot <= r[1]) {
                    return true;
                }
            }
            return false;
        }

        int count() {
            int n = 0;
            for (int[] r : slots) {
                n += r[1] - r[0] + 1;
            }
            return n;
        }

        String slotsText() {
            StringBuilder sb = new StringBuilder();
            for (int[] r : slots) {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(r[0]).append('-').append(r[1]);
            }
            return sb.toString();
        }
    }

    private static List<NodeInfo> parseNodes(String text) {
        if (text == null || text.startsWith("ERR:")) {
            throw new IllegalStateException("CLUSTER NODES answered " + text);
        }
        List<NodeInfo> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length < 8) {
                continue;
            }
            String address = f[1].split("[@,]")[0];
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // a slot being imported or migrated
                }
                int dash = f[i].indexOf('-');
                int from = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(f[i].substring(dash + 1));
                slots.add(new int[] {from, to});
            }
            out.add(new NodeInfo(f[0], address, port, Set.of(f[2].split(",")), f[3], slots));
        }
        return out;
    }

    private static int assigned(List<NodeInfo> view) {
        int n = 0;
        for (NodeInfo i : view) {
            if (i.master() && !i.failed()) {
                n += i.count();
            }
        }
        return n;
    }

    private static NodeInfo find(List<NodeInfo> view, String id) {
        for (NodeInfo n : view) {
            if (n.id.equals(id)) {
                return n;
            }
        }
        return null;
    }

    /** The cluster as the first live node sees it. */
    private List<NodeInfo> topology() {
        for (RedisProcess p : nodes) {
            if (p.alive()) {
                try {
                    return parseNodes(p.command("CLUSTER", "NODES"));
                } catch (RuntimeException e) {
                    // paused or dying: ask the next
                }
            }
        }
        throw new IllegalStateException("no node of the cluster answers");
    }

    private String topologyText() {
        StringBuilder sb = new StringBuilder();
        for (NodeInfo n : topology()) {
            sb.append("\n  ").append(n.address).append(' ').append(n.flags).append(" slots ").append(n.slotsText());
        }
        return sb.toString();
    }

    private NodeInfo node(RedisProcess p) {
        return find(topology(), ids.get(p.port()));
    }

    private RedisProcess byPort(int port) {
        for (RedisProcess p : nodes) {
            if (p.port() == port) {
                return p;
            }
        }
        throw new IllegalStateException("no node on port " + port);
    }

    private static String clusterInfo(RedisProcess p, String field) {
        return field(p.command("CLUSTER", "INFO"), field);
    }

    static String field(String text, String name) {
        if (text == null) {
            return null;
        }
        for (String line : text.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    static int major(String version) {
        try {
            return Integer.parseInt(version.substring(0, version.indexOf('.')));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static String ok(RedisProcess p, String... cmd) {
        String reply = p.command(cmd);
        if (reply == null || reply.startsWith("ERR:")) {
            throw new IllegalStateException(cmd[0] + (cmd.length > 1 ? " " + cmd[1] : "") + " on " + p.address()
                    + " answered " + reply);
        }
        return reply;
    }

    private void await(String what, Duration timeout, Supplier<String> problem) {
        Retry.await("Redis Cluster", what, timeout, problem, this::logs);
    }

    private String logs() {
        StringBuilder sb = new StringBuilder();
        for (RedisProcess p : nodes) {
            String log = p.log();
            String[] lines = log.split("\n");
            sb.append("\n--- ").append(p.address()).append(p.alive() ? "" : " (dead)").append(", last lines of its log:");
            for (int i = Math.max(0, lines.length - 8); i < lines.length; i++) {
                sb.append("\n  ").append(lines[i]);
            }
        }
        return sb.toString();
    }

    /** One field of an {@code INFO} section, e.g. {@code info(p, "replication", "role")}. */
    static String info(RedisEndpoint p, String section, String field) {
        return field(p.command("INFO", section), field);
    }
}
