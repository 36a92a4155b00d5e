package dev.tollgate.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How to reach Redis: its {@link Topology} (one server, a Cluster, or a master watched by
 * Sentinels), credentials, TLS, the time budget of a call, the pool and the circuit. These are
 * read once, at the start: connections are opened once.
 *
 * <p>Built by {@link #builder(Topology)} (or read by {@link TollgateConfig#load}); a key added
 * later is a builder method, never a broken constructor. The password is never part of
 * {@link #toString()} or {@link #describe()}. Immutable and thread-safe.
 */
public final class RedisSettings {

    /** Where the data lives; each kind holds only what it needs, so no impossible mix can be built. */
    public sealed interface Topology permits Standalone, Cluster, Sentinel {
        /** {@code host:port} of the server, of the cluster's seed nodes, or of the sentinels. */
        List<String> nodes();

        /** The database index (always 0 in a Cluster). */
        int database();

        /** One server, {@code host:port}, and its database. */
        static Topology standalone(String host, int port, int database) {
            return new Standalone(hostPort(host, port), database);
        }
    }

    /**
     * One server.
     *
     * @param node     {@code host:port}
     * @param database the database index
     */
    public record Standalone(String node, int database) implements Topology {
        public Standalone {
            Objects.requireNonNull(node, "node");
            if (database < 0) {
                throw new IllegalArgumentException("a database index is not negative: " + database);
            }
        }

        @Override
        public List<String> nodes() {
            return List.of(node);
        }
    }

    /**
     * A Redis Cluster.
     *
     * @param seeds {@code host:port} of the nodes to learn the cluster from
     */
    public record Cluster(List<String> seeds) implements Topology {
        public Cluster {
            seeds = List.copyOf(seeds);
            if (seeds.isEmpty()) {
                throw new IllegalArgumentException("a cluster needs at least one seed node");
            }
        }

        @Override
        public List<String> nodes() {
            return seeds;
        }

        @Override
        public int database() {
            return 0;
        }
    }

    /**
     * A master found through Sentinels. The sentinels' own password is never part of {@link #toString()}.
     *
     * @param master    the name the sentinels know the master by
     * @param sentinels {@code host:port} of the sentinels
     * @param database  the master's database
     * @param user      the sentinels' own ACL user, or {@code null}
     * @param password  the sentinels' own password, or {@code null} (sentinels without one)
     */
    public record Sentinel(String master, List<String> sentinels, int database, String user, String password)
            implements Topology {
        public Sentinel {
            Objects.requireNonNull(master, "master");
            sentinels = List.copyOf(sentinels);
            if (sentinels.isEmpty()) {
                throw new IllegalArgumentException("Sentinel needs at least one sentinel");
            }
        }

        /** Sentinels that need no password, and database 0. */
        public Sentinel(String master, List<String> sentinels) {
            this(master, sentinels, 0, null, null);
        }

        @Override
        public List<String> nodes() {
            return sentinels;
        }

        @Override
        public String toString() {
            return "Sentinel[master=" + master + ", sentinels=" + sentinels + ", database=" + database + ", user=" + user
                    + (password != null ? ", password=****" : "") + "]";
        }
    }

    /**
     * What TLS trusts and shows beyond the JVM's defaults; files are read when Redis is connected.
     * Passwords are never part of {@link #toString()}. Built by {@link #builder()}.
     */
    public static final class TlsOptions {
        /** The JVM's trust, no client certificate, host names checked. */
        public static final TlsOptions DEFAULT = builder().build();

        private final String truststore;
        private final String truststorePassword;
        private final String keystore;
        private final String keystorePassword;
        private final String clientKey;
        private final String clientCertificate;
        private final boolean verifyHostname;

        private TlsOptions(Builder b) {
            this.truststore = b.truststore;
            this.truststorePassword = b.truststorePassword;
            this.keystore = b.keystore;
            this.keystorePassword = b.keystorePassword;
            this.clientKey = b.clientKey;
            this.clientCertificate = b.clientCertificate;
            this.verifyHostname = b.verifyHostname;
        }

        public static Builder builder() {
            return new Builder();
        }

        /** PKCS12, JKS or PEM file of the CAs to trust, or {@code null} for the JVM's. */
        public String truststore() {
            return truststore;
        }

        /** The trust store's password, or {@code null}. */
        public String truststorePassword() {
            return truststorePassword;
        }

        /** PKCS12 or JKS file of the client's key and certificate (mutual TLS), or {@code null}. */
        public String keystore() {
            return keystore;
        }

        /** The key store's password (and its key's), or {@code null}. */
        public String keystorePassword() {
            return keystorePassword;
        }

        /** PEM file of the client's unencrypted PKCS#8 private key (instead of a key store), or {@code null}. */
        public String clientKey() {
            return clientKey;
        }

        /** PEM file of the client's certificate chain, with {@link #clientKey()}, or {@code null}. */
        public String clientCertificate() {
            return clientCertificate;
        }

        /** Whether the client shows a certificate: a key store, or a PEM key and certificate. */
        public boolean hasClientCertificate() {
            return keystore != null || clientKey != null;
        }

        /** Whether the server's certificate must name the host connected to. */
        public boolean verifyHostname() {
            return verifyHostname;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TlsOptions t && Objects.equals(truststore, t.truststore)
                    && Objects.equals(truststorePassword, t.truststorePassword) && Objects.equals(keystore, t.keystore)
                    && Objects.equals(keystorePassword, t.keystorePassword) && Objects.equals(clientKey, t.clientKey)
                    && Objects.equals(clientCertificate, t.clientCertificate) && verifyHostname == t.verifyHostname;
        }

        @Override
        public int hashCode() {
            return Objects.hash(truststore, keystore, verifyHostname);
        }

        @Override
        public String toString() {
            return "TlsOptions[truststore=" + truststore + ", keystore=" + keystore
                    + (clientKey != null ? ", key=" + clientKey + ", certificate=" + clientCertificate : "")
                    + ", verifyHostname=" + verifyHostname + "]";
        }

        /** Builds {@link TlsOptions}; not thread-safe. */
        public static final class Builder {
            private String truststore;
            private String truststorePassword;
            private String keystore;
            private String keystorePassword;
            private String clientKey;
            private String clientCertificate;
            private boolean verifyHostname = Settings.REDIS_TLS_VERIFY_HOSTNAME.defaultValue();

            private Builder() {
            }

            public Builder truststore(String file, String password) {
                this.truststore = file;
                this.truststorePassword = password;
                return this;
            }

            public Builder keystore(String file, String password) {
                this.keystore = file;
                this.keystorePassword = password;
                return this;
            }

            /** The client's PEM private key (unencrypted PKCS#8) and certificate chain, instead of a key store. */
            public Builder pemKeyPair(String keyFile, String certificateFile) {
                this.clientKey = keyFile;
                this.clientCertificate = certificateFile;
                return this;
            }

            public Builder verifyHostname(boolean verify) {
                this.verifyHostname = verify;
                return this;
            }

            public TlsOptions build() {
                return new TlsOptions(this);
            }
        }
    }

    private final Topology topology;
    private final boolean tls;
    private final TlsOptions tlsOptions;
    private final String user;
    private final String password;
    private final Duration timeout;
    private final int poolSize;
    private final int circuitFailures;
    private final Duration circuitOpenFor;
    private final boolean autoPipelining;

    private RedisSettings(Builder b) {
        this.topology = Objects.requireNonNull(b.topology, "topology");
        this.tls = b.tls;
        this.tlsOptions = Objects.requireNonNull(b.tlsOptions, "tlsOptions");
        this.user = b.user;
        this.password = b.password;
        this.timeout = Objects.requireNonNull(b.timeout, "timeout");
        this.poolSize = b.poolSize;
        this.circuitFailures = b.circuitFailures;
        this.circuitOpenFor = Objects.requireNonNull(b.circuitOpenFor, "circuitOpenFor");
        this.autoPipelining = b.autoPipelining;
    }

    /** Settings for {@code topology}, every other value its key's default ({@link Settings}). */
    public static Builder builder(Topology topology) {
        return new Builder(topology);
    }

    /** A builder holding these settings, to change some. */
    public Builder toBuilder() {
        Builder b = new Builder(topology);
        b.tls = tls;
        b.tlsOptions = tlsOptions;
        b.user = user;
        b.password = password;
        b.timeout = timeout;
        b.poolSize = poolSize;
        b.circuitFailures = circuitFailures;
        b.circuitOpenFor = circuitOpenFor;
        b.autoPipelining = autoPipelining;
        return b;
    }

    /** A standalone Redis, database 0, every other value its default: for tests and programmatic use. */
    public static RedisSettings standalone(String host, int port, Duration timeout) {
        return builder(Topology.standalone(host, port, 0)).timeout(timeout).build();
    }

    static String hostPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** Standalone, Cluster or Sentinel, with what each needs. */
    public Topology topology() {
        return topology;
    }

    /** {@code host:port} of the server, of the cluster's seed nodes, or of the sentinels. */
    public List<String> nodes() {
        return topology.nodes();
    }

    /** The database index (standalone and Sentinel; 0 in a Cluster). */
    public int database() {
        return topology.database();
    }

    /** Whether this is a Redis Cluster, whose keys of one request must share a hash slot. */
    public boolean isCluster() {
        return topology instanceof Cluster;
    }

    /** TLS to Redis ({@code rediss://}, or {@code tollgate.redis.tls}). */
    public boolean tls() {
        return tls;
    }

    /** The trust store, client certificate and host name check of TLS ({@link TlsOptions#DEFAULT}: the JVM's). */
    public TlsOptions tlsOptions() {
        return tlsOptions;
    }

    /** ACL user, or {@code null}. */
    public String user() {
        return user;
    }

    /** Password, or {@code null}. */
    public String password() {
        return password;
    }

    /** The time budget of one call. */
    public Duration timeout() {
        return timeout;
    }

    /** Most connections per server. */
    public int poolSize() {
        return poolSize;
    }

    /** Consecutive failures that open the circuit. */
    public int circuitFailures() {
        return circuitFailures;
    }

    /** How long the circuit stays open before a probe, the first time. */
    public Duration circuitOpenFor() {
        return circuitOpenFor;
    }

    /** Whether concurrent calls are pipelined on shared connections. */
    public boolean autoPipelining() {
        return autoPipelining;
    }

    /** Where and how, for logs: never a password. */
    public String describe() {
        String auth = auth(user, password);
        if (topology instanceof Cluster) {
            return "Redis Cluster " + auth + nodes() + (tls ? " (TLS)" : "");
        }
        if (topology instanceof Sentinel s) {
            return "Redis master '" + s.master() + "'" + (auth.isEmpty() ? "" : " as " + auth.substring(0, auth.length() - 1))
                    + (s.database() != 0 ? " db " + s.database() : "") + " via sentinels " + auth(s.user(), s.password())
                    + nodes() + (tls ? " (TLS)" : "");
        }
        return (tls ? "rediss://" : "redis://") + auth + nodes().get(0) + (database() != 0 ? "/" + database() : "");
    }

    private static String auth(String user, String password) {
        String credentials = (user != null ? user : "") + (password != null ? ":****" : "");
        return credentials.isEmpty() ? "" : credentials + "@";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisSettings r && topology.equals(r.topology) && tls == r.tls && tlsOptions.equals(r.tlsOptions)
                && Objects.equals(user, r.user) && Objects.equals(password, r.password) && timeout.equals(r.timeout)
                && poolSize == r.poolSize && circuitFailures == r.circuitFailures && circuitOpenFor.equals(r.circuitOpenFor)
                && autoPipelining == r.autoPipelining;
    }

    @Override
    public int hashCode() {
        return Objects.hash(topology, tls, user, timeout, poolSize);
    }

    @Override
    public String toString() {
        return "RedisSettings[" + describe() + ", timeout=" + timeout + ", poolSize=" + poolSize + ", autoPipelining=" + autoPipelining + "]";
    }

    /** Builds {@link RedisSettings}; every value starts at its key's default. Not thread-safe. */
    public static final class Builder {
        private Topology topology;
        private boolean tls = Settings.REDIS_TLS.defaultValue();
        private TlsOptions tlsOptions = TlsOptions.DEFAULT;
        private String user;
        private String password;
        private Duration timeout = Settings.REDIS_TIMEOUT.defaultValue();
        private int poolSize = Settings.REDIS_POOL_SIZE.defaultValue();
        private int circuitFailures = Settings.REDIS_CIRCUIT_FAILURES.defaultValue();
        private Duration circuitOpenFor = Settings.REDIS_CIRCUIT_OPEN_FOR.defaultValue();
        private boolean autoPipelining = Settings.REDIS_AUTO_PIPELINING.defaultValue();

        private Builder(Topology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
        }

        public Builder topology(Topology t) {
            this.topology = Objects.requireNonNull(t, "topology");
            return this;
        }

        public Builder tls(boolean on) {
            this.tls = on;
            return this;
        }

        public Builder tlsOptions(TlsOptions options) {
            this.tlsOptions = Objects.requireNonNull(options, "tlsOptions");
            return this;
        }

        /** The ACL user and password; either may be {@code null}. */
        public Builder credentials(String user, String password) {
            this.user = user;
            this.password = password;
            return this;
        }

        public Builder timeout(Duration budget) {
            this.timeout = budget;
            return this;
        }

        public Builder poolSize(int size) {
            this.poolSize = size;
            return this;
        }

        /** The circuit: consecutive failures that open it, and how long it stays open the first time. */
        public Builder circuit(int failures, Duration openFor) {
            this.circuitFailures = failures;
            this.circuitOpenFor = openFor;
            return this;
        }

        public Builder autoPipelining(boolean on) {
            this.autoPipelining = on;
            return this;
        }

        public RedisSettings build() {
            return new RedisSettings(this);
        }
    }
}
