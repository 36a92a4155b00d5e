package dev.tollgate.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A Redis master with one replica, watched by three sentinels, all local processes: what a
 * client built with {@code RedisSentinelClient.builder().masterName(..).sentinels(..)} talks to.
 * Set up with plain commands and generated files (no {@code redis-cli}), so it works with any
 * {@code redis-server} that {@link TestRedis} finds.
 *
 * <p>Each sentinel runs {@code redis-server <its sentinel.conf> --sentinel} on its own port, with
 * its own configuration file in its own temporary directory (sentinels rewrite it), and:
 * <pre>
 * sentinel monitor tollgate 127.0.0.1 &lt;master port&gt; 2
 * sentinel down-after-milliseconds tollgate 1000
 * sentinel failover-timeout tollgate 5000
 * </pre>
 * A quorum of two out of three, so one sentinel alone cannot fail the master over; a master is
 * subjectively down after one second without answering; a failed election is retried after
 * ten seconds (twice the failover timeout) instead of six minutes. The master and replica run
 * with {@code --repl-diskless-sync-delay 0}, so the replica's first sync starts at once.
 *
 * <p>{@link #start()} returns once every sentinel knows the master, the replica (attached and in
 * sync) and the two other sentinels: a failover needs all of that, and sentinels learn it only
 * from each other and from the master's {@code INFO}, which takes a few seconds.
 */
public final class RedisSentinels implements AutoCloseable {

    public static final String MASTER_NAME = "tollgate";
    public static final int DOWN_AFTER_MILLIS = 1000;
    public static final int FAILOVER_TIMEOUT_MILLIS = 5000;
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(40);

    /**
     * How to start them.
     *
     * @param sentinelPorts    the three sentinels' ports, 0 for a free one: a test can name sentinels
     *                         in a client's configuration before they run
     * @param masterPassword   {@code requirepass} (and {@code masterauth}) of the master and the
     *                         replica, which the sentinels are given ({@code sentinel auth-pass}); or
     *                         {@code null}
     * @param sentinelUser     an ACL user on each sentinel (the default user then off); or {@code null}
     * @param sentinelPassword the sentinels' own password ({@code requirepass}, or the ACL user's),
     *                         which they also use with each other; or {@code null}
     */
    public record Setup(List<Integer> sentinelPorts, String masterPassword, String sentinelUser, String sentinelPassword) {

        public static final Setup DEFAULT = new Setup(List.of(0, 0, 0), null, null, null);

        public Setup onPorts(List<Integer> ports) {
            return new Setup(List.copyOf(ports), masterPassword, sentinelUser, sentinelPassword);
        }

        public Setup masterPassword(String password) {
            return new Setup(sentinelPorts, password, sentinelUser, sentinelPassword);
        }

        public Setup sentinelAuth(String user, String password) {
            return new Setup(sentinelPorts, masterPassword, user, password);
        }

        String sentinelConfig(RedisProcess master) {
            StringBuilder c = new StringBuilder()
                    .append("sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2\n")
                    .append("sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS + "\n")
                    .append("sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS + "\n")
                    .append("sentinel parallel-syncs " + MASTER_NAME + " 1\n");
            if (masterPassword != null) {
                c.append("sentinel auth-pass " + MASTER_NAME + " " + masterPassword + "\n");
            }
            if (sentinelUser != null) {
                c.append("user default off\n")
                        .append("user " + sentinelUser + " on >" + sentinelPassword + " allchannels +@all\n")
                        .append("sentinel sentinel-user " + sentinelUser + "\n")
                        .append("sentinel sentinel-pass " + sentinelPassword + "\n");
            } else if (sentinelPassword != null) {
                c.append("requirepass " + sentinelPassword + "\n")
                        .append("sentinel sentinel-pass " + sentinelPassword + "\n");
            }
            return c.toString();
        }

        String[] serverArgs(String... more) {
            List<String> args = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
            if (masterPassword != null) {
                args.addAll(List.of("--requirepass", masterPassword, "--masterauth", masterPassword));
            }
            args.addAll(List.of(more));
            return args.toArray(new String[0]);
        }
    }

    private final List<RedisProcess> servers = new ArrayList<>();
    private final List<RedisProcess> sentinels = new ArrayList<>();
    private long killedAtNanos;
    private int killedPort;

    private RedisSentinels() {
    }

    /** Starts the master, the replica and three sentinels, and waits until they all know each other. */
    public static RedisSentinels start() {
        return start(Setup.DEFAULT);
    }

    /** The same, as {@code setup} says. */
    public static RedisSentinels start(Setup setup) {
        long t0 = System.nanoTime();
        RedisSentinels s = new RedisSentinels();
        try {
            RedisProcess master = TestRedis.startProcess(0, null, setup.serverArgs()).auth(null, setup.masterPassword());
            s.servers.add(master);
            s.servers.add(TestRedis.startProcess(0, null, setup.serverArgs("--replicaof", master.host(),
                    Integer.toString(master.port()))).auth(null, setup.masterPassword()));
            s.await("the replica to be attached and in sync", SETUP_TIMEOUT, () -> {
                RedisProcess replica = s.servers.get(1);
                String link = RedisCluster.info(replica, "replication", "master_link_status");
                String syncing = RedisCluster.info(replica, "replication", "master_sync_in_progress");
                return "up".equals(link) && "0".equals(syncing) ? null
                        : replica.address() + " has master_link_status:" + link + ", master_sync_in_progress:" + syncing;
            });
            String config = setup.sentinelConfig(master);
            for (int port : setup.sentinelPorts()) {
                s.sentinels.add(TestRedis.startProcess(port, config, "--sentinel")
                        .auth(setup.sentinelUser(), setup.sentinelPassword()));
            }
            long started = System.nanoTime();
            s.await("every sentinel to know the master, its replica and the two other sentinels", SETUP_TIMEOUT, () -> {
                for (RedisProcess sentinel : s.sentinels) {
                    String problem = s.knowsAll(sentinel, master);
                    if (problem != null) {
                        return problem;
                    }
                }
                return null;
            });
            long done = System.nanoTime();
            System.out.printf("[redis-sentinels] %s: master %s, replica %s, sentinels %s; processes up in %d ms,"
                            + " sentinels agreed after %d ms more (%d ms in all)%n", TestRedis.binaryKind(), master.address(),
                    s.servers.get(1).address(), s.sentinelAddresses(), (started - t0) / 1_000_000,
                    (done - started) / 1_000_000, (done - t0) / 1_000_000);
            return s;
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    /** The name the sentinels monitor the master under. */
    public String masterName() {
        return MASTER_NAME;
    }

    /** Every sentinel's {@code host:port}. */
    public List<String> sentinelAddresses() {
        List<String> out = new ArrayList<>();
        for (RedisProcess p : sentinels) {
            out.add(p.address());
        }
        return out;
    }

    /** The sentinel processes. */
    public List<RedisProcess> sentinels() {
        return List.copyOf(sentinels);
    }

    /** The master and the replica, in start order. */
    public List<RedisProcess> servers() {
        return List.copyOf(servers);
    }

    /** The master's {@code host:port} as the first sentinel that answers says. */
    public String currentMasterAddress() {
        RuntimeException last = null;
        for (RedisProcess sentinel : sentinels) {
            if (!sentinel.alive()) {
                continue;
            }
            try {
                return masterAddress(sentinel);
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no sentinel answers", last);
    }

    /** The process that the sentinels name as master now. */
    public RedisProcess currentMaster() {
        return byAddress(currentMasterAddress());
    }

    /** SIGKILLs the current master, as in a crash; returns it. */
    public RedisProcess killMaster() {
        RedisProcess master = currentMaster();
        master.kill();
        killedAtNanos = System.nanoTime();
        killedPort = master.port();
        System.out.printf("[redis-sentinels] master %s killed%n", master.address());
        return master;
    }

    /**
     * Waits until every live sentinel names a new master and that process says it is a master;
     * returns it.
     */
    public RedisProcess awaitNewMaster(Duration timeout) {
        if (killedPort == 0) {
            throw new IllegalStateException("killMaster() was not called");
        }
        RedisProcess[] found = new RedisProcess[1];
        await("the sentinels to promote a new master after " + "127.0.0.1:" + killedPort + " died", timeout, () -> {
            String agreed = null;
            for (RedisProcess sentinel : sentinels) {
                if (!sentinel.alive()) {
                    continue;
                }
                String address = masterAddress(sentinel);
                if (address.endsWith(":" + killedPort)) {
                    return sentinel.address() + " still names the dead master";
                }
                if (agreed != null && !agreed.equals(address)) {
                    return "the sentinels disagree: " + agreed + " and " + address;
                }
                agreed = address;
            }
            RedisProcess candidate = byAddress(agreed);
            String role = RedisCluster.info(candidate, "replication", "role");
            if (!"master".equals(role)) {
                return candidate.address() + " is named master but says role:" + role;
            }
            found[0] = candidate;
            return null;
        });
        System.out.printf("[redis-sentinels] failover: new master %s named by every sentinel %d ms after the kill%n",
                found[0].address(), (System.nanoTime() - killedAtNanos) / 1_000_000);
        return found[0];
    }

    @Override
    public void close() {
        for (RedisProcess p : sentinels) {
            p.close();
        }
        for (RedisProcess p : servers) {
            p.close();
        }
    }

    private String knowsAll(RedisProcess sentinel, RedisProcess master) {
        String address = masterAddress(sentinel);
        if (!address.equals(master.address())) {
            return sentinel.address() + " names " + address + " as master";
        }
        Map<String, String> m = pairs(sentinel.command("SENTINEL", "MASTER", MASTER_NAME));
        if (!"master".equals(m.get("flags"))) {
            return sentinel.address() + " flags the master " + m.get("flags");
        }
        if (!"1".equals(m.get("num-slaves"))) {
            return sentinel.address() + " knows " + m.get("num-slaves") + " replicas";
        }
        if (!"2".equals(m.get("num-other-sentinels"))) {
            return sentinel.address() + " knows " + m.get("num-other-sentinels") + " other sentinels";
        }
        Map<String, String> r = pairs(sentinel.command("SENTINEL", "REPLICAS", MASTER_NAME));
        if (!"slave".equals(r.get("flags")) || !"ok".equals(r.get("master-link-status"))) {
            return sentinel.address() + " sees the replica with flags " + r.get("flags") + ", master-link-status "
                    + r.get("master-link-status");
        }
        return null;
    }

    private static String masterAddress(RedisProcess sentinel) {
        String reply = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        if (reply == null || reply.startsWith("ERR:") || !reply.contains("\n")) {
            throw new IllegalStateException(sentinel.address() + " answered " + reply + " for the master's address");
        }
        String[] hostPort = reply.split("\n");
        return hostPort[0] + ":" + hostPort[1];
    }

    /** A flat array reply of alternating names and values (one level of nesting flattened). */
    private static Map<String, String> pairs(String reply) {
        Map<String, String> out = new java.util.HashMap<>();
        if (reply == null || reply.startsWith("ERR:")) {
            return out;
        }
        String[] lines = reply.split("\n");
        for (int i = 0; i + 1 < lines.length; i += 2) {
            out.putIfAbsent(lines[i], lines[i + 1]);
        }
        return out;
    }

    private RedisProcess byAddress(String address) {
        for (RedisProcess p : servers) {
            if (p.address().equals(address)) {
                return p;
            }
        }
        throw new IllegalStateException("the sentinels name " + address + ", which is none of " + servers);
    }

    private void await(String what, Duration timeout, Supplier<String> problem) {
        Retry.await("Redis Sentinel", what, timeout, problem, this::logs);
    }

    private String logs() {
        StringBuilder sb = new StringBuilder();
        List<RedisProcess> all = new ArrayList<>(servers);
        all.addAll(sentinels);
        for (RedisProcess p : all) {
            String[] lines = p.log().split("\n");
            sb.append("\n--- ").append(sentinels.contains(p) ? "sentinel " : "server ").append(p.address())
                    .append(p.alive() ? "" : " (dead)").append(", last lines of its log:");
            for (int i = Math.max(0, lines.length - 12); i < lines.length; i++) {
                sb.append("\n  ").append(lines[i]);
            }
        }
        return sb.toString();
    }
}
