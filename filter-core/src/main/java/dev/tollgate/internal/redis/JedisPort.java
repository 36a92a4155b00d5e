package dev.tollgate.internal.redis;

import dev.tollgate.config.RedisSettings;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.util.Delay;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.Pool;

/**
 * {@link RedisPort} over a Jedis 8 client: standalone, Cluster or Sentinel. Thread-safe: Jedis
 * clients pool their connections.
 *
 * <p>The time budget {@code t} ({@code tollgate.redis.timeout}) bounds a whole script call,
 * however Redis fails, or several calls of one request that share it ({@link #deadline()}: each
 * starts only with {@code 3t/4} of it left, else a {@link RedisPort.BudgetSpentException}). This port sends its calls itself on a pooled connection of the primary (or,
 * in a cluster, of the master of the call's slot, as Jedis' slot cache knows it: see
 * {@link ClusterNodes}), and every wait is given only what is left of {@code t}: a caller starts a round
 * trip only with at least {@code 3t/4} left (what opening a new connection takes when Redis
 * does not answer: connect {@code t/4} and the handshake's two replies {@code t/4} each, as
 * {@link #connect} configures Jedis), waits for a pooled connection only what is left beyond that, and reads each
 * reply with a socket timeout of what is left. A script Redis has lost ({@code NOSCRIPT}) is sent
 * whole on the same connection within the same budget ({@code EVAL} caches it again). A call that
 * fails on a connection Redis closed (a restart) is tried once more on a fresh connection, only
 * with that much still left. A connection a call gives up on is handed back closed and replaced
 * by the next caller (within its time for a new connection), not by the caller out of time.
 * The one wait Jedis bounds alone is a new connection's handshake: Jedis 8 makes two round trips
 * ({@code HELLO}, then {@code CLIENT SETNAME}/{@code SETINFO}), each read within {@code t/4}, so
 * connect and handshake together stay within the {@code 3t/4} a call keeps for them.
 *
 * <p>In a cluster, a call answered {@code MOVED} is sent once to the master named, with the same
 * {@code 3t/4} still left, and asks for the slot cache to be renewed in the background, as does a
 * call that fails on a master's connection. While a slot is migrated (a resharding: {@code CLUSTER
 * SETSLOT IMPORTING}/{@code MIGRATING}, then {@code MIGRATE} of its keys), its master still runs the
 * calls whose keys it holds; one whose keys it no longer holds, or never held, is answered
 * {@code ASK} and sent once to the importing master, after {@code ASKING} on the same connection
 * (it holds for that one command), outside that master's pipeline, with {@code 3t/4} still left,
 * and sent whole there after {@code ASKING} again if that master does not know the script. The
 * slot cache is not renewed for an {@code ASK}, as the cluster specification says: the slot stays
 * its master's until the migration ends, and a {@code MOVED} then renews it. A master that a
 * redirection names but the cache does not list (one just added, owning no slot yet) has its pool
 * made then. A call whose keys the migration has split between the two masters is answered
 * {@code TRYAGAIN} by either: it is sent again from the start after a pause of {@code t/32}, while
 * {@code 7t/8} is still left after the pause (three times more at most), then fails with a
 * {@link RedisPort.SplitKeysException} carrying the budget's end, for {@link RedisStore} to decide
 * its keys one by one in what is left (a call of one key is never answered {@code TRYAGAIN}). The keys of one call
 * share a slot (one client's keys share its hash tag; a request whose policies' keys lie in
 * several slots makes one call per slot), so only a request of several policies of one client
 * meets it, and only while that slot's keys are moved, or, for a key never written, until the
 * slot's migration ends: Redis refuses a multi-key call with a key absent on either side.
 *
 * <p>Concurrent script calls for one node (the primary, or one master of a cluster) are pipelined
 * ({@code tollgate.redis.auto-pipelining}): see {@link AutoPipeline}, one per node. A caller
 * alone still makes one plain round trip.
 *
 * <p>Longer than most classes on purpose: it is the one class that knows Jedis (with
 * {@link ClusterNodes}, which reads a cluster's slot cache), so every Jedis
 * call (three topologies, pooling, the script cache, error translation) stays here and a Jedis
 * upgrade touches this file alone.
 */
public final class JedisPort implements RedisPort {

    /** Most commands sent in one write when calls are pipelined. */
    static final int MAX_BATCH = 128;

    /**
     * A script call: by its SHA-1 when {@code sha1} is set, else sent whole; a call by SHA-1 that
     * also has the {@code script} is sent whole when Redis has lost it.
     */
    private record Script(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args) {
    }

    /**
     * A node this port sends script calls to (the primary, or one master of a cluster): its pool
     * and, when calls are pipelined, its pipeline. Thread-safe.
     */
    private final class Node {
        final Supplier<Pool<Connection>> pool;
        /** Concurrent script calls sent together; null when each call has a connection of its own. */
        final AutoPipeline<Script> pipeline;

        Node(Supplier<Pool<Connection>> pool) {
            this.pool = pool;
            this.pipeline = pipelineLeaders > 0
                    ? new AutoPipeline<>(pipelineLeaders, MAX_BATCH, newConnectionNanos,
                            (batch, deadline) -> send(pool.get(), batch, deadline, false), System::nanoTime)
                    : null;
        }

        Object once(Script s, long deadline) {
            if (pipeline != null) {
                return pipeline.call(s, deadline);
            }
            if (deadline - System.nanoTime() < newConnectionNanos) {
                throw new BusyException(null); // not reached unless the JVM kept this thread from running
            }
            return alone(s, deadline, false);
        }

        /**
         * The call on a connection of its own, outside the pipeline; after {@code ASKING} when
         * {@code asking} (which holds for the next command on that connection only).
         */
        Object alone(Script s, long deadline, boolean asking) {
            Object reply = send(pool.get(), List.of(s), deadline, asking).get(0);
            if (reply instanceof RuntimeException e) {
                throw e;
            }
            return reply;
        }
    }

    private final UnifiedJedis jedis;
    private final String description;
    private final long timeoutNanos;
    /** What opening a connection takes when Redis does not answer: connect {@code t/4}, two reads {@code t/4}. */
    private final long newConnectionNanos;
    private final int pipelineLeaders;
    /** The primary; null in a cluster. */
    private final Node primary;
    /** The masters of the cluster; null outside one. */
    private final ClusterNodes<ConnectionPool, Node> masters;
    /** Batches sent (round trips made for script calls), for tests. */
    private final LongAdder exchanges = new LongAdder();

    /**
     * @param cluster the cluster client's connection provider (its slot cache), or {@code null} outside a cluster
     */
    JedisPort(UnifiedJedis jedis, String description, ClusterNodes.Provider cluster, Duration timeout, int pipelineLeaders) {
        this.jedis = jedis;
        this.description = description;
        this.timeoutNanos = timeout.toNanos();
        // below 4 ms, Jedis' timeouts (whole milliseconds, at least 1) add up to more than 3/4 of t
        this.newConnectionNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(3L * millis(timeout, 4)), timeoutNanos * 3 / 4);
        this.pipelineLeaders = pipelineLeaders;
        this.primary = cluster == null ? new Node(primaryPool(jedis)) : null;
        this.masters = cluster == null ? null : ClusterNodes.of(cluster, pool -> new Node(() -> pool));
    }

    /** How to find the primary's pool now (a Sentinel failover replaces it). */
    private static Supplier<Pool<Connection>> primaryPool(UnifiedJedis jedis) {
        if (jedis instanceof RedisClient client) {
            Pool<Connection> pool = client.getPool();
            return () -> pool;
        }
        if (jedis instanceof RedisSentinelClient client) {
            return () -> client.getPrimaryNodesConnectionMap().values().iterator().next();
        }
        throw new IllegalArgumentException("no pool of a primary in " + jedis.getClass().getName());
    }

    /**
     * A port for the configured topology that makes its Jedis client on first use, and again on a
     * later call while it could not (see {@link ConnectingPort}): nothing fails here if Redis is
     * down, whatever the topology, and a server older than {@link RedisVersion#MINIMUM} is refused
     * like an unreachable one.
     */
    public static RedisPort create(RedisSettings settings) {
        Duration t = settings.timeout();
        // An attempt asks each seed or sentinel in turn (connect and answer, at most 3/4 of the
        // budget each), then the server its version: this bounds how long close() waits for one.
        Duration attemptBound = t.multipliedBy(settings.nodes().size() + 2);
        return new ConnectingPort(() -> connectExplained(settings), ConnectingPort.threadPerAttempt("tollgate-redis-connect"),
                t.dividedBy(4), attemptBound, settings.describe(),
                settings.isCluster() ? JedisClusterCRC16::getSlot : null);
    }

    /**
     * A Jedis client for the configured topology, made now: Cluster and Sentinel clients ask
     * Redis for the topology as they are built, and throw if it does not answer.
     */
    static JedisPort connect(RedisSettings settings) {
        Duration t = settings.timeout();
        int borrow = millis(t, 4);
        int connect = millis(t, 4);
        // Script calls set their own read timeout to what is left of the budget; this one bounds
        // the handshake of a new connection (two round trips), so that connect and handshake stay
        // within the 3/4 of the budget a call keeps for them, and Jedis' own calls (the cluster's
        // slots, loading the script, the server's version).
        int read = millis(t, 4);
        RedisTls tls = RedisTls.of(settings);
        DefaultJedisClientConfig.Builder config = tls.configure(DefaultJedisClientConfig.builder())
                .connectionTimeoutMillis(connect)
                .socketTimeoutMillis(read)
                .clientName("tollgate");
        if (settings.user() != null) {
            config.user(settings.user());
        }
        if (settings.password() != null) {
            config.password(settings.password());
        }
        ConnectionPoolConfig pool = poolConfig(settings.poolSize(), Duration.ofMillis(borrow));
        if (settings.topology() instanceof RedisSettings.Cluster) {
            DefaultJedisClientConfig clientConfig = config.build();
            // made here so that this port reads the slot cache the client routes by
            ClusterNodes.Provider provider = new ClusterNodes.Provider(hosts(settings.nodes()), clientConfig, pool);
            RedisClusterClient client = RedisClusterClient.builder()
                    .nodes(hosts(settings.nodes()))
                    .clientConfig(clientConfig)
                    .poolConfig(pool)
                    .connectionProvider(provider)
                    .maxAttempts(2)
                    .maxTotalRetriesDuration(t)
                    .build();
            return new JedisPort(client, settings.describe(), provider, t, settings.autoPipelining() ? CLUSTER_PIPELINE_LEADERS : 0);
        }
        if (settings.topology() instanceof RedisSettings.Sentinel sentinel) {
            DefaultJedisClientConfig.Builder sentinelConfig = tls.configure(DefaultJedisClientConfig.builder())
                    .connectionTimeoutMillis(connect).socketTimeoutMillis(read);
            // the sentinels' own credentials, which need not be the master's
            if (sentinel.user() != null) {
                sentinelConfig.user(sentinel.user());
            }
            if (sentinel.password() != null) {
                sentinelConfig.password(sentinel.password());
            }
            RedisSentinelClient client = RedisSentinelClient.builder()
                    .masterName(sentinel.master())
                    .sentinels(hosts(settings.nodes()))
                    .clientConfig(config.database(settings.database()).build())
                    .sentinelClientConfig(sentinelConfig.build())
                    .sentinelReconnectDelay(Delay.constant(SENTINEL_RECONNECT))
                    .poolConfig(pool)
                    .build();
            return new JedisPort(client, settings.describe(), null, t, leaders(settings));
        }
        RedisClient client = RedisClient.builder()
                .hostAndPort(hosts(settings.nodes()).iterator().next())
                .clientConfig(config.database(settings.database()).build())
                .poolConfig(pool)
                .build();
        return new JedisPort(client, settings.describe(), null, t, leaders(settings));
    }

    /** {@link #connect}, a TLS failure (Cluster and Sentinel clients connect as they are built) told as such. */
    private static JedisPort connectExplained(RedisSettings settings) {
        try {
            return connect(settings);
        } catch (JedisException e) {
            throw RedisTls.explainedConnecting(e);
        }
    }

    /**
     * How long a sentinel listener waits before it subscribes again to a sentinel it lost. Jedis
     * waits 5 s, and a closed client's listener ends only when that wait is over: a second bounds
     * both how late a failover is learnt from a sentinel that came back and how long a listener
     * thread outlives {@link #close()}.
     */
    static final Duration SENTINEL_RECONNECT = Duration.ofSeconds(1);

    /** A standalone client, as {@link #create} makes it. */
    public static RedisPort standalone(RedisSettings settings) {
        return create(settings);
    }

    /**
     * Batches in flight at once. Redis runs one command at a time, so two batches keep it busy (one
     * being run while the other travels or is read), and fewer leaders make larger batches: on the
     * benchmark machine, 64 threads made 15-20k decisions/s with one to three leaders against 10-14k
     * with sixteen (one per pooled connection) and 9-11k without pipelining.
     */
    static final int PIPELINE_LEADERS = 2;

    /**
     * Batches in flight at once per master of a cluster. With three masters or more, one each is
     * already more batches than the two that keep one Redis busy, and more make smaller batches:
     * on the benchmark machine (2 cores), 64 threads over three masters made 1.03x the standalone
     * figure with one leader per master against 0.74x with two, in the same run of
     * {@code -Dbench=cluster} (docs/benchmarks.md).
     */
    static final int CLUSTER_PIPELINE_LEADERS = 1;

    private static int leaders(RedisSettings settings) {
        return settings.autoPipelining() ? Math.min(PIPELINE_LEADERS, settings.poolSize()) : 0;
    }

    private static int millis(Duration budget, int share) {
        return (int) Math.max(1, budget.toMillis() / share);
    }

    static Set<HostAndPort> hosts(List<String> nodes) {
        Set<HostAndPort> out = new LinkedHashSet<>();
        for (String n : nodes) {
            int colon = n.lastIndexOf(':');
            String host = n.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            out.add(new HostAndPort(host, Integer.parseInt(n.substring(colon + 1))));
        }
        return out;
    }

    static ConnectionPoolConfig poolConfig(int size, Duration maxWait) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(size);
        pool.setMaxIdle(size);
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(maxWait);
        pool.setTestOnBorrow(false);
        pool.setTestWhileIdle(false);
        // No evictor thread: nothing keeps running (or pins the web application's class loader)
        // if a limiter is never closed. Broken connections are found when used.
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        pool.setJmxEnabled(false);
        return pool;
    }

    /** Whether keys of one call must share a hash slot. */
    @Override
    public boolean clustered() {
        return masters != null;
    }

    @Override
    public int slot(String key) {
        return JedisClusterCRC16.getSlot(key);
    }

    @Override
    public long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args) {
        return longs(run(new Script(sha1, script, keys, args)));
    }

    @Override
    public long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args) {
        return longs(run(new Script(sha1, null, keys, args)));
    }

    @Override
    public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
        return longs(run(new Script(null, script, keys, args)));
    }

    @Override
    public long deadline() {
        return System.nanoTime() + timeoutNanos;
    }

    @Override
    public long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
        return longs(run(new Script(sha1, script, keys, args), deadline));
    }

    @Override
    public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
        return longs(run(new Script(null, script, keys, args), deadline));
    }

    @Override
    public String scriptLoad(String script, String routingKey) {
        try {
            return jedis.scriptLoad(script, routingKey);
        } catch (JedisException e) {
            throw busyOr(e);
        }
    }

    /**
     * {@inheritDoc} An ACL user may be refused {@code INFO} (it is in {@code @dangerous}), or the
     * command renamed away: then the server does not say, which is {@code null}, not a failure.
     */
    @Override
    public String serverVersion(String routingKey) {
        Object reply;
        try {
            reply = jedis.sendCommand(routingKey, Protocol.Command.INFO, "server");
        } catch (JedisDataException e) {
            String m = String.valueOf(e.getMessage());
            if (m.startsWith("NOPERM") || m.contains("unknown command")) {
                return null;
            }
            throw busyOr(e);
        } catch (JedisException e) {
            throw busyOr(e);
        }
        return RedisVersion.fromInfo(reply instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(reply));
    }

    /**
     * Runs a script call within the budget. A call Redis answers {@code TRYAGAIN} (its keys are
     * split between the two masters of a slot being migrated) is sent again after a pause of
     * {@link #TRY_AGAIN_PAUSE_SHARE t/32}, from its slot's master again, as long as a new
     * connection's time and {@link #SPLIT_RESERVE_SHARE t/8} still fit in what is left after the
     * pause; then it fails with a
     * {@link SplitKeysException}, which is no failure of Redis: the caller may send its keys one
     * by one in what is left of the budget ({@link RedisStore} does).
     */
    private Object run(Script s) {
        return run(s, System.nanoTime() + timeoutNanos);
    }

    /**
     * {@link #run(Script)} within a budget that ends at {@code deadline}, which other calls of the
     * same request may have used already: a round trip is started only with {@code 3t/4} left.
     */
    private Object run(Script s, long deadline) {
        if (deadline - System.nanoTime() < newConnectionNanos) {
            throw new BudgetSpentException(null);
        }
        JedisDataException split = null;
        while (true) {
            try {
                return routed(s, deadline);
            } catch (BudgetSpentException e) {
                // tried again, the slot's master sent it on (ASK), with too little left to follow: still split
                throw split != null ? new SplitKeysException(split, deadline) : e;
            } catch (JedisAskDataException e) {
                throw e; // sent on to a master this port cannot reach: a failure, split or not
            } catch (JedisDataException e) {
                if (!tryAgain(e)) {
                    throw e; // translated already
                }
                split = e;
                long pause = timeoutNanos / TRY_AGAIN_PAUSE_SHARE;
                if (deadline - System.nanoTime() - pause < newConnectionNanos + timeoutNanos / SPLIT_RESERVE_SHARE) {
                    throw new SplitKeysException(e, deadline);
                }
                LockSupport.parkNanos(pause);
                if (deadline - System.nanoTime() < newConnectionNanos) {
                    // the pause overran (a loaded machine): no time left to send it again
                    throw new SplitKeysException(e, deadline);
                }
            }
        }
    }

    /**
     * The pause before a call answered {@code TRYAGAIN} is sent again: {@code t/32}, so that a call
     * is sent up to three more times while the keys of its slot are moved, which
     * {@code redis-cli --cluster reshard} does in batches of a few milliseconds: about {@code t/8}
     * in all, what is left of the {@code t/4} in which a call may start its round trips once
     * {@link #SPLIT_RESERVE_SHARE} is kept.
     */
    static final int TRY_AGAIN_PAUSE_SHARE = 32;

    /**
     * What a call answered {@code TRYAGAIN} keeps of its budget, beyond a new connection's time,
     * when it stops trying again: {@code t/8}, for its keys to be decided one by one
     * ({@link RedisStore}: a dry run and a take per key, a key not yet written followed to the
     * importing master after {@code ASK}), each round trip still started with {@code 3t/4} left.
     */
    static final int SPLIT_RESERVE_SHARE = 8;

    /**
     * One attempt at a script call, following a redirection, and once more if it failed on a
     * connection that Redis had closed while a new connection still fits in what is left: after a
     * restart every pooled connection is dead, and the first request on each must not be the one
     * that pays for it. Throws a {@code TRYAGAIN} untranslated, for {@link #run} to try again.
     */
    private Object routed(Script s, long deadline) {
        Node node = primary != null ? primary : masterOf(s);
        try {
            return node.once(s, deadline);
        } catch (JedisConnectionException e) {
            if (masters != null) {
                masters.renewSoon(); // the master may be gone: its replica may be serving the slot already
            }
            if (!staleConnection(e) || deadline - System.nanoTime() < newConnectionNanos) {
                throw busyOr(e);
            }
            node.pool.get().clear();
            try {
                return node.once(s, deadline);
            } catch (JedisException again) {
                throw failed(again);
            }
        } catch (JedisMovedDataException e) {
            return movedOnce(s, e, deadline);
        } catch (JedisAskDataException e) {
            return askedOnce(s, e, deadline);
        } catch (JedisException e) {
            throw failed(e);
        }
    }

    /** The cluster master of the call's slot (its keys share one), as the slot cache knows it. */
    private Node masterOf(Script s) {
        int slot = JedisClusterCRC16.getSlot(s.keys().get(0));
        Node node = masters.forSlot(slot);
        if (node == null) {
            throw busyOr(new JedisConnectionException("no master is known for slot " + slot));
        }
        return node;
    }

    /**
     * A slot moved to another master (a failover or a resharding the slot cache has not seen yet):
     * the call is sent there once, if a new connection still fits in what is left (a master the
     * cache does not know yet, one a resharding just added, has its pool made), and the cache is
     * renewed for the calls that follow.
     */
    private Object movedOnce(Script s, JedisMovedDataException moved, long deadline) {
        masters.renewSoon();
        Node target = masters.forRedirection(moved.getTargetNode());
        if (target == null) {
            throw busyOr(moved);
        }
        if (deadline - System.nanoTime() < newConnectionNanos) {
            throw new BudgetSpentException(moved);
        }
        try {
            return target.once(s, deadline);
        } catch (JedisException again) {
            throw failed(again);
        }
    }

    /**
     * The call's slot is being migrated and its keys are not (all) on the slot's master any more:
     * the call is sent once to the master importing the slot, after {@code ASKING} on the same
     * connection, outside that master's pipeline (a batch's other calls must not be sent as
     * {@code ASKING}), if a new connection still fits in what is left. The slot cache is not
     * renewed: the slot still belongs to its master until the migration ends, and the calls that
     * follow must still ask it first (it answers those whose keys it still holds). The importing
     * master does not know the script yet, usually: it is sent whole, after {@code ASKING} again.
     */
    private Object askedOnce(Script s, JedisAskDataException ask, long deadline) {
        Node target = masters.forRedirection(ask.getTargetNode());
        if (target == null) {
            throw busyOr(ask);
        }
        if (deadline - System.nanoTime() < newConnectionNanos) {
            throw new BudgetSpentException(ask);
        }
        try {
            return target.alone(s, deadline, true);
        } catch (JedisException again) {
            throw failed(again);
        }
    }

    /** A failure translated for the store, but a {@code TRYAGAIN} kept as it is for {@link #run}. */
    private static RuntimeException failed(JedisException e) {
        return e instanceof JedisDataException d && tryAgain(d) ? d : busyOr(e);
    }

    /** Redis' {@code TRYAGAIN}: the keys of a multi-key call are split between the two masters of a migrating slot. */
    private static boolean tryAgain(JedisDataException e) {
        return e.getMessage() != null && e.getMessage().startsWith("TRYAGAIN");
    }

    /**
     * One batch on one pooled connection of a node, by {@code deadline}: every command written,
     * one flush, every reply read, then the scripts Redis had lost sent whole and their replies read.
     * A command's own error (a script error) is its reply; a connection failure fails the whole batch.
     * When {@code asking}, every command (a script sent whole again too) follows an {@code ASKING},
     * whose own reply is read and dropped.
     */
    private List<Object> send(Pool<Connection> pool, List<Script> batch, long deadline, boolean asking) {
        exchanges.increment();
        Connection c = borrow(pool, deadline);
        boolean reusable = false;
        try {
            int configured = c.getSoTimeout();
            for (int i = 0; i < batch.size(); i++) {
                Script s = batch.get(i);
                if (asking) {
                    c.sendCommand(Protocol.Command.ASKING);
                }
                write(c, s, s.sha1() != null);
            }
            List<Object> replies = read(c, batch.size(), deadline, asking);
            List<Integer> lost = null;
            for (int i = 0; i < batch.size(); i++) {
                if (replies.get(i) instanceof JedisDataException e && noScript(e)) {
                    if (batch.get(i).script() == null) {
                        replies.set(i, new NoScriptException(e));
                    } else {
                        if (lost == null) {
                            lost = new ArrayList<>(1);
                        }
                        lost.add(i);
                        if (asking) {
                            c.sendCommand(Protocol.Command.ASKING);
                        }
                        write(c, batch.get(i), false);
                    }
                }
            }
            if (lost != null) {
                List<Object> again = read(c, lost.size(), deadline, asking);
                for (int k = 0; k < lost.size(); k++) {
                    replies.set(lost.get(k), again.get(k));
                }
            }
            c.setSoTimeout(configured);
            reusable = !c.isBroken();
            return replies;
        } finally {
            if (!reusable) {
                // replies may still be on their way: never reuse it. Not invalidated here, as the
                // pool would open its replacement at once, on this caller's time, past its deadline
                c.disconnect();
            }
            pool.returnResource(c);
        }
    }

    /**
     * A pooled connection, waiting at most what is left of the budget beyond opening a new one. One
     * a failed call gave back disconnected is replaced here (the pool opens a new one), within this
     * caller's time for a new connection.
     */
    private Connection borrow(Pool<Connection> pool, long deadline) {
        Connection c = take(pool, deadline - System.nanoTime() - newConnectionNanos);
        if (c.isConnected() && !c.isBroken()) {
            return c;
        }
        try {
            pool.invalidateObject(c);
        } catch (JedisException e) {
            throw e;
        } catch (Exception e) {
            throw new JedisConnectionException("Could not open a connection", e);
        }
        c = take(pool, 0);
        if (c.isConnected() && !c.isBroken()) {
            return c;
        }
        pool.returnResource(c);
        throw new BusyException(null); // another caller took the replacement: no time for a second one
    }

    private static Connection take(Pool<Connection> pool, long waitNanos) {
        try {
            return pool.borrowObject(Duration.ofNanos(Math.max(0, waitNanos)));
        } catch (NoSuchElementException e) {
            if (e.getCause() instanceof JedisException cause) {
                throw cause; // opening or readying a connection failed
            }
            throw new BusyException(e);
        } catch (JedisException e) {
            throw e;
        } catch (Exception e) {
            throw new JedisConnectionException("Could not open a connection", e);
        }
    }

    private static void write(Connection c, Script s, boolean bySha) {
        CommandArguments a = new CommandArguments(bySha ? Protocol.Command.EVALSHA : Protocol.Command.EVAL);
        a.add(new Bytes(bySha ? s.sha1() : s.script()));
        List<byte[]> keys = s.keys();
        a.add(keys.size() < KEY_COUNTS.length ? KEY_COUNTS[keys.size()] : new Bytes(Protocol.toByteArray(keys.size())));
        for (int i = 0; i < keys.size(); i++) {
            a.add(new Bytes(keys.get(i)));
        }
        List<byte[]> args = s.args();
        for (int i = 0; i < args.size(); i++) {
            a.add(new Bytes(args.get(i)));
        }
        c.sendCommand(a);
    }

    /** The number of keys of a script call, encoded once for the usual counts. */
    private static final Bytes[] KEY_COUNTS = new Bytes[8];

    static {
        for (int i = 0; i < KEY_COUNTS.length; i++) {
            KEY_COUNTS[i] = new Bytes(Protocol.toByteArray(i));
        }
    }

    /**
     * An argument as Jedis writes it, the array itself: Jedis' own wrapper copies every argument
     * (about 340 B per script call), and these arrays are never changed once made (the store's
     * encoded shapes are shared by every call of their shape).
     */
    private static final class Bytes implements Rawable {
        private final byte[] raw;

        Bytes(byte[] raw) {
            this.raw = raw;
        }

        @Override
        public byte[] getRaw() {
            return raw;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bytes b && java.util.Arrays.equals(raw, b.raw);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(raw);
        }
    }

    /**
     * Reads {@code n} replies, each with a socket timeout of what is left before {@code deadline};
     * when {@code asking}, each after the reply to its {@code ASKING}, which is dropped (were it an
     * error, the command's own reply says so: the node would not take it).
     */
    private static List<Object> read(Connection c, int n, long deadline, boolean asking) {
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < (asking ? 2 * n : n); i++) {
            long leftMillis = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMillis < 1) {
                throw new JedisConnectionException(new SocketTimeoutException("the time budget is spent"));
            }
            c.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMillis));
            Object reply;
            try {
                reply = c.getOne();
            } catch (JedisDataException e) {
                reply = e;
            }
            if (!asking || i % 2 == 1) {
                out.add(reply);
            }
        }
        return out;
    }

    private static boolean noScript(JedisDataException e) {
        return e instanceof JedisNoScriptException || (e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT"));
    }

    /** A pool that had no free connection in time is this node's congestion, not Redis failing. */
    private static RuntimeException busyOr(JedisException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.util.NoSuchElementException) {
                return new BusyException(e);
            }
        }
        return RedisTls.explained(e);
    }

    /** A failure on an established connection (reset, closed), not a timeout or a refusal. */
    private static boolean staleConnection(JedisConnectionException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException || t instanceof ConnectException) {
                return false;
            }
        }
        String m = String.valueOf(e.getMessage());
        return !m.contains("Could not get a resource") && !m.contains("Failed to connect")
                && !m.contains("Could not open a connection");
    }

    @Override
    public String describe() {
        return description;
    }

    /** Batches of script calls sent so far, each one round trip (for tests). */
    long exchanges() {
        return exchanges.sum();
    }

    @Override
    public void close() {
        if (masters != null) {
            // a renewal asks each node in turn, each within connect and read timeouts (t/4 each)
            masters.close(Duration.ofNanos(timeoutNanos / 2 * Math.max(1, jedis instanceof RedisClusterClient c
                    ? c.getClusterNodes().size() : 1)));
        }
        jedis.close();
    }

    private static long[] longs(Object reply) {
        if (!(reply instanceof List<?> list)) {
            throw new IllegalStateException("expected an array reply, got " + reply);
        }
        long[] out = new long[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (Long) list.get(i);
        }
        return out;
    }
}
