package dev.tollgate.config;

import java.time.Duration;
import java.util.List;

/**
 * How to reach Redis: one server, a Cluster, or a master watched by Sentinels.
 *
 * <p>The password is never part of {@link #toString()} or {@link #describe()}.
 *
 * @param topology      standalone, cluster or sentinel
 * @param nodes         {@code host:port} of the server, of the cluster's seed nodes, or of the sentinels
 * @param masterName    the name the sentinels know the master by; {@code null} otherwise
 * @param tls           TLS to Redis ({@code rediss://}, or {@code tollgate.redis.tls})
 * @param user          ACL user, or {@code null}
 * @param password      password, or {@code null}
 * @param database      database index (standalone and sentinel)
 * @param timeout       the time budget of one call
 * @param poolSize      most connections per server
 * @param circuitFailures consecutive failures that open the circuit
 * @param circuitOpenFor  how long the circuit stays open before a probe, the first time
 * @param autoPipelining  whether concurrent calls are pipelined on shared connections (not in a cluster)
 * @param sentinelUser    the sentinels' own ACL user, or {@code null}
 * @param sentinelPassword the sentinels' own password, or {@code null} (sentinels without one)
 * @param tlsOptions      the trust store, client certificate and host name check of TLS ({@link TlsOptions#DEFAULT}: the JVM's)
 */
public record RedisSettings(Topology topology, List<String> nodes, String masterName, boolean tls, String user,
                            String password, int database, Duration timeout, int poolSize, int circuitFailures,
                            Duration circuitOpenFor, boolean autoPipelining, String sentinelUser, String sentinelPassword,
                            TlsOptions tlsOptions) {

    /** Where the data lives. */
    public enum Topology {
        STANDALONE, CLUSTER, SENTINEL
    }

    /**
     * What TLS trusts and shows beyond the JVM's defaults; files are read when Redis is connected.
     * Passwords are never part of {@link #toString()}.
     *
     * @param truststore         PKCS12, JKS or PEM file of the CAs to trust, or {@code null} for the JVM's
     * @param truststorePassword its password, or {@code null}
     * @param keystore           PKCS12 or JKS file of the client's key and certificate (mutual TLS), or {@code null}
     * @param keystorePassword   its password (and its key's), or {@code null}
     * @param verifyHostname     whether the server's certificate must name the host connected to
     */
    public record TlsOptions(String truststore, String truststorePassword, String keystore, String keystorePassword,
                             boolean verifyHostname) {
        public static final TlsOptions DEFAULT = new TlsOptions(null, null, null, null, true);

        @Override
        public String toString() {
            return "TlsOptions[truststore=" + truststore + ", keystore=" + keystore + ", verifyHostname=" + verifyHostname + "]";
        }
    }

    public RedisSettings {
        nodes = List.copyOf(nodes);
        tlsOptions = tlsOptions == null ? TlsOptions.DEFAULT : tlsOptions;
    }

    /** Settings with TLS as the JVM has it. */
    public RedisSettings(Topology topology, List<String> nodes, String masterName, boolean tls, String user,
                         String password, int database, Duration timeout, int poolSize, int circuitFailures,
                         Duration circuitOpenFor, boolean autoPipelining, String sentinelUser, String sentinelPassword) {
        this(topology, nodes, masterName, tls, user, password, database, timeout, poolSize, circuitFailures,
                circuitOpenFor, autoPipelining, sentinelUser, sentinelPassword, TlsOptions.DEFAULT);
    }

    /** These settings with other TLS options. */
    public RedisSettings withTlsOptions(TlsOptions options) {
        return new RedisSettings(topology, nodes, masterName, tls, user, password, database, timeout, poolSize,
                circuitFailures, circuitOpenFor, autoPipelining, sentinelUser, sentinelPassword, options);
    }

    /** Settings whose sentinels (if any) need no password. */
    public RedisSettings(Topology topology, List<String> nodes, String masterName, boolean tls, String user,
                         String password, int database, Duration timeout, int poolSize, int circuitFailures,
                         Duration circuitOpenFor, boolean autoPipelining) {
        this(topology, nodes, masterName, tls, user, password, database, timeout, poolSize, circuitFailures,
                circuitOpenFor, autoPipelining, null, null);
    }

    /** A standalone Redis with the default pool, circuit and pipelining ({@link Settings}), for tests and programmatic use. */
    public static RedisSettings standalone(String host, int port, Duration timeout) {
        return new RedisSettings(Topology.STANDALONE, List.of(hostPort(host, port)), null, false, null, null, 0,
                timeout, Settings.REDIS_POOL_SIZE.defaultValue(), Settings.REDIS_CIRCUIT_FAILURES.defaultValue(),
                Settings.REDIS_CIRCUIT_OPEN_FOR.defaultValue(), Settings.REDIS_AUTO_PIPELINING.defaultValue());
    }

    static String hostPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** Where and how, for logs: never a password. */
    public String describe() {
        String auth = auth(user, password);
        switch (topology) {
            case CLUSTER:
                return "Redis Cluster " + auth + nodes + (tls ? " (TLS)" : "");
            case SENTINEL:
                return "Redis master '" + masterName + "'" + (auth.isEmpty() ? "" : " as " + auth.substring(0, auth.length() - 1))
                        + (database != 0 ? " db " + database : "") + " via sentinels " + auth(sentinelUser, sentinelPassword)
                        + nodes + (tls ? " (TLS)" : "");
            default:
                return (tls ? "rediss://" : "redis://") + auth + nodes.get(0) + (database != 0 ? "/" + database : "");
        }
    }

    private static String auth(String user, String password) {
        String credentials = (user != null ? user : "") + (password != null ? ":****" : "");
        return credentials.isEmpty() ? "" : credentials + "@";
    }

    @Override
    public String toString() {
        return "RedisSettings[" + describe() + ", timeout=" + timeout + ", poolSize=" + poolSize + ", autoPipelining=" + autoPipelining + "]";
    }
}
