package dev.tollgate.config;

import dev.tollgate.config.text.Accepted;
import dev.tollgate.config.text.ConfigMessages;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads which Redis to use, and how: one topology, its credentials, the time budget and circuit. */
final class RedisReader {

    private final ConfigReader r;

    private RedisReader(ConfigReader r) {
        this.r = r;
    }

    /** The Redis settings, or {@code null} for the in-memory store or after a problem (recorded in {@code r}). */
    static RedisSettings read(ConfigReader r) {
        return new RedisReader(r).withTls();
    }

    private static final List<Setting<?>> TLS_SETTINGS = List.of(Settings.REDIS_TLS_TRUSTSTORE,
            Settings.REDIS_TLS_TRUSTSTORE_PASSWORD, Settings.REDIS_TLS_KEYSTORE, Settings.REDIS_TLS_KEYSTORE_PASSWORD,
            Settings.REDIS_TLS_KEY, Settings.REDIS_TLS_CERTIFICATE, Settings.REDIS_TLS_VERIFY_HOSTNAME);

    private RedisSettings withTls() {
        RedisSettings.TlsOptions tlsOptions = tlsOptions();
        RedisSettings s = redis();
        if (s != null && !s.tls() && !RedisSettings.TlsOptions.DEFAULT.equals(tlsOptions)) {
            for (Setting<?> setting : TLS_SETTINGS) {
                r.value(setting).ifPresent(v -> r.problems.add(ConfigMessages.badValue(secret(setting) ? ConfigReader.hidden(v) : v,
                        "TLS is off", "this key with TLS on: a rediss:// URI, or " + Settings.REDIS_TLS
                                + "=true")));
            }
        }
        return s == null || tlsOptions == null ? s : s.toBuilder().tlsOptions(tlsOptions).build();
    }

    private static boolean secret(Setting<?> setting) {
        return setting == Settings.REDIS_TLS_TRUSTSTORE_PASSWORD || setting == Settings.REDIS_TLS_KEYSTORE_PASSWORD;
    }

    /**
     * The trust store, key store and host name check of TLS; {@code null} after a problem. A store
     * must name a readable file, whether or not a Redis connection will use it (a bad value stops the
     * start); what the file holds is the engine's check when it opens the Redis connection (with the
     * {@link #tlsOrigins origins} of the values, so that its message names them as this reader would).
     */
    private RedisSettings.TlsOptions tlsOptions() {
        int before = r.problems.size();
        RedisSettings.TlsOptions o = RedisSettings.TlsOptions.builder()
                .truststore(r.get(Settings.REDIS_TLS_TRUSTSTORE), r.secret(Settings.REDIS_TLS_TRUSTSTORE_PASSWORD))
                .keystore(r.get(Settings.REDIS_TLS_KEYSTORE), r.secret(Settings.REDIS_TLS_KEYSTORE_PASSWORD))
                .pemKeyPair(r.get(Settings.REDIS_TLS_KEY), r.get(Settings.REDIS_TLS_CERTIFICATE))
                .verifyHostname(r.get(Settings.REDIS_TLS_VERIFY_HOSTNAME)).build();
        orphan(o.truststorePassword() != null && o.truststore() == null, Settings.REDIS_TLS_TRUSTSTORE_PASSWORD,
                Settings.REDIS_TLS_TRUSTSTORE);
        orphan(o.keystorePassword() != null && o.keystore() == null, Settings.REDIS_TLS_KEYSTORE_PASSWORD,
                Settings.REDIS_TLS_KEYSTORE);
        halfPair(o.clientKey() != null && o.clientCertificate() == null, Settings.REDIS_TLS_KEY, Settings.REDIS_TLS_CERTIFICATE);
        halfPair(o.clientCertificate() != null && o.clientKey() == null, Settings.REDIS_TLS_CERTIFICATE, Settings.REDIS_TLS_KEY);
        if (o.keystore() != null && (o.clientKey() != null || o.clientCertificate() != null)) {
            Setting<String> pem = o.clientKey() != null ? Settings.REDIS_TLS_KEY : Settings.REDIS_TLS_CERTIFICATE;
            r.misfit(pem.name(), Settings.REDIS_TLS_KEYSTORE + " is set too, and the client shows one certificate",
                    "either " + Settings.REDIS_TLS_KEYSTORE + " or " + Settings.REDIS_TLS_KEY + " with "
                            + Settings.REDIS_TLS_CERTIFICATE);
        }
        readableFile(o.truststore(), Settings.REDIS_TLS_TRUSTSTORE.name(), Accepted.TLS_TRUSTSTORE);
        readableFile(o.clientKey(), Settings.REDIS_TLS_KEY.name(), Accepted.TLS_KEY);
        readableFile(o.clientCertificate(), Settings.REDIS_TLS_CERTIFICATE.name(), Accepted.TLS_CERTIFICATE);
        readableFile(o.keystore(), Settings.REDIS_TLS_KEYSTORE.name(), Accepted.TLS_KEYSTORE);
        return r.problems.size() > before ? null : o;
    }

    /** A store's path, when set, names a regular file this process can read. */
    private void readableFile(String path, String key, String accepted) {
        if (path == null) {
            return;
        }
        String why;
        try {
            Path file = Path.of(path);
            // the words RedisTls uses for the same findings, so a message does not depend on who found it
            why = !Files.exists(file) ? "the file does not exist (or is out of this process's reach)"
                    : Files.isDirectory(file) ? "it is a directory, not a file"
                    : !Files.isReadable(file) ? "the file cannot be read (this process may not read it)" : null;
        } catch (InvalidPathException e) {
            why = "it is not a path";
        }
        if (why != null) {
            r.misfit(key, why, accepted);
        }
    }

    /**
     * The values of the trust and key stores and their passwords as a message shows them (a
     * password as ****) with where each came from, by key: for {@link TollgateConfig#origins()}.
     */
    static Map<String, ConfigValue> tlsOrigins(ConfigReader r) {
        Map<String, ConfigValue> origins = new LinkedHashMap<>();
        for (Setting<?> setting : List.of(Settings.REDIS_TLS_TRUSTSTORE, Settings.REDIS_TLS_TRUSTSTORE_PASSWORD,
                Settings.REDIS_TLS_KEYSTORE, Settings.REDIS_TLS_KEYSTORE_PASSWORD, Settings.REDIS_TLS_KEY,
                Settings.REDIS_TLS_CERTIFICATE)) {
            r.value(setting).ifPresent(v -> origins.put(v.key(), secret(setting) ? ConfigReader.hidden(v) : v));
        }
        return origins;
    }

    /** One half of the PEM key pair without the other: refused rather than silently ignored. */
    private void halfPair(boolean alone, Setting<String> set, Setting<String> missing) {
        if (alone) {
            r.misfit(set.name(), missing + " is not set, and a client certificate needs its key (and the key its"
                    + " certificate)", set + " together with " + missing);
        }
    }

    /** A store's password without the store: refused rather than silently ignored. */
    private void orphan(boolean orphaned, Setting<String> password, Setting<String> store) {
        if (orphaned) {
            r.value(password).ifPresent(v -> r.problems.add(ConfigMessages.badValue(ConfigReader.hidden(v),
                    "it is the password of " + store + ", which is not set", "a password together with " + store)));
        }
    }

    private RedisSettings redis() {
        Duration timeout = r.get(Settings.REDIS_TIMEOUT);
        int pool = r.get(Settings.REDIS_POOL_SIZE);
        int failures = r.get(Settings.REDIS_CIRCUIT_FAILURES);
        Duration openFor = r.get(Settings.REDIS_CIRCUIT_OPEN_FOR);
        boolean tls = r.get(Settings.REDIS_TLS);
        boolean pipelining = r.get(Settings.REDIS_AUTO_PIPELINING);
        String user = r.get(Settings.REDIS_USER);
        String password = r.secret(Settings.REDIS_PASSWORD);
        Sentinel sentinelAuth = sentinelAuth();

        Optional<ConfigValue> uri = r.value(Settings.REDIS_URI);
        Optional<ConfigValue> cluster = r.value(Settings.REDIS_CLUSTER);
        Optional<ConfigValue> master = r.value(Settings.REDIS_SENTINEL_MASTER);
        Optional<ConfigValue> sentinels = r.value(Settings.REDIS_SENTINEL_NODES);
        int topologies = (uri.isPresent() ? 1 : 0) + (cluster.isPresent() ? 1 : 0)
                + (master.isPresent() || sentinels.isPresent() ? 1 : 0);
        if (topologies > 1) {
            r.problems.add(ConfigMessages.bad("more than one of " + Settings.REDIS_URI + ", " + Settings.REDIS_CLUSTER
                    + " and " + Settings.REDIS_SENTINEL_MASTER + " is set. Accepted: exactly one Redis topology"));
            return null;
        }
        if (master.isEmpty() && sentinels.isEmpty()) {
            sentinelOnly(Settings.REDIS_SENTINEL_USER, "unset");
            sentinelOnly(Settings.REDIS_SENTINEL_PASSWORD, "unset");
            sentinelOnly(Settings.REDIS_SENTINEL_DATABASE, "unset; a standalone server's database is the"
                    + " URI's path, e.g. redis://host:6379/2, and a Cluster has database 0 only");
        }
        if (uri.isPresent()) {
            // Parsed from the real text, shown masked: a refused URI never puts its password in a message.
            String text = uri.get().value();
            ConfigValue shown = new ConfigValue(uri.get().key(), RedisUris.maskPassword(text), uri.get().source());
            RedisSettings s = r.parse(shown, Settings.REDIS_URI.withParser(ignored -> RedisUris.parse(text), null), null);
            if (s == null) {
                return null;
            }
            // tollgate.redis.tls=true asks for TLS whatever the scheme says: a redis:// URI beside it
            // must not quietly send the password and the keys in the clear (issue 21).
            return s.toBuilder().tls(s.tls() || tls).credentials(user != null ? user : s.user(),
                    password != null ? password : s.password()).timeout(timeout).poolSize(pool)
                    .circuit(failures, openFor).autoPipelining(pipelining).build();
        }
        if (cluster.isPresent()) {
            List<String> nodes = r.parse(cluster.get(), Settings.REDIS_CLUSTER, null);
            return nodes == null ? null : RedisSettings.builder(new RedisSettings.Cluster(nodes)).tls(tls)
                    .credentials(user, password).timeout(timeout).poolSize(pool).circuit(failures, openFor)
                    .autoPipelining(pipelining).build();
        }
        if (master.isPresent() || sentinels.isPresent()) {
            if (master.isEmpty()) {
                r.problems.add(ConfigMessages.badValue(sentinels.get(), Settings.REDIS_SENTINEL_MASTER + " is not set, and the"
                        + " sentinels need the master's name", "sentinel nodes together with a master name"));
                return null;
            }
            if (sentinels.isEmpty()) {
                r.problems.add(ConfigMessages.badValue(master.get(), Settings.REDIS_SENTINEL_NODES + " is not set, and a master"
                        + " name needs the sentinels that know it", "a master name together with sentinel nodes"));
                return null;
            }
            List<String> nodes = r.parse(sentinels.get(), Settings.REDIS_SENTINEL_NODES, null);
            String masterName = r.parse(master.get(), Settings.REDIS_SENTINEL_MASTER, null);
            return nodes == null || masterName == null || sentinelAuth == null ? null
                    : RedisSettings.builder(new RedisSettings.Sentinel(masterName, nodes, sentinelAuth.database(),
                            sentinelAuth.user(), sentinelAuth.password())).tls(tls).credentials(user, password)
                            .timeout(timeout).poolSize(pool).circuit(failures, openFor).autoPipelining(pipelining).build();
        }
        return null;
    }

    /** What the sentinels themselves need, and the master's database; {@code null} after a problem. */
    private record Sentinel(String user, String password, int database) {
    }

    private Sentinel sentinelAuth() {
        int before = r.problems.size();
        String user = r.get(Settings.REDIS_SENTINEL_USER);
        String password = r.secret(Settings.REDIS_SENTINEL_PASSWORD);
        int database = r.get(Settings.REDIS_SENTINEL_DATABASE);
        if (user != null && password == null && r.value(Settings.REDIS_SENTINEL_PASSWORD).isEmpty()) {
            r.misfit(Settings.REDIS_SENTINEL_USER.name(), "a sentinel user needs " + Settings.REDIS_SENTINEL_PASSWORD
                    + ", which is not set", "a user together with " + Settings.REDIS_SENTINEL_PASSWORD);
        }
        return r.problems.size() > before ? null : new Sentinel(user, password, database);
    }

    /** A Sentinel key set without Sentinel: refused rather than silently ignored. */
    private void sentinelOnly(Setting<?> setting, String accepted) {
        boolean secret = setting == Settings.REDIS_SENTINEL_PASSWORD;
        r.value(setting).ifPresent(v -> r.problems.add(ConfigMessages.badValue(secret ? ConfigReader.hidden(v) : v,
                "it applies only to Sentinel (" + Settings.REDIS_SENTINEL_MASTER + " and "
                        + Settings.REDIS_SENTINEL_NODES + "), which is not configured", accepted)));
    }
}
