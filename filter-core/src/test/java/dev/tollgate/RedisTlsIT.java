package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestCertificates;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.TestRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TLS to a real {@code redis-server} (started with {@code --tls-port}) with certificates made by
 * the test ({@link TestCertificates}): the trust store as PKCS12 and as a PEM bundle, mutual TLS
 * with the client's key store, and each way TLS can fail (a CA that signed nothing of Redis', no
 * client certificate, a certificate that does not name the host) told in the log with what failed
 * and which key to set, while the failure mode decides.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisTlsIT {

    static TestCertificates certs;
    /** TLS, no client certificate asked; its certificate names 127.0.0.1 and localhost. */
    static RedisProcess server;
    static int serverTls;
    /** TLS with {@code tls-auth-clients yes}. */
    static RedisProcess mutual;
    static int mutualTls;
    /** TLS with a certificate that names no host. */
    static RedisProcess nameless;
    static int namelessTls;

    @BeforeAll
    static void start() {
        certs = TestCertificates.shared();
        serverTls = RedisProcess.freePort();
        server = TestRedis.startProcess(certs.serverArgs(serverTls, true, false));
        mutualTls = RedisProcess.freePort();
        mutual = TestRedis.startProcess(certs.serverArgs(mutualTls, true, true));
        namelessTls = RedisProcess.freePort();
        nameless = TestRedis.startProcess(certs.serverArgs(namelessTls, false, false));
    }

    @AfterAll
    static void stop() {
        for (RedisProcess p : new RedisProcess[] {server, mutual, nameless}) {
            if (p != null) {
                p.close();
            }
        }
    }

    static RateLimiter limiter(String host, int port, String failureMode, Map<String, String> tls) {
        Map<String, String> m = new HashMap<>(tls);
        m.put("tollgate.redis.uri", "rediss://" + host + ":" + port);
        m.put("tollgate.redis.timeout", "2s"); // a TLS handshake on a busy machine, not what is tested
        m.put("tollgate.redis.failure-mode", failureMode);
        m.put("tollgate.redis.key-prefix", "tls:");
        m.put("tollgate.policy.default.limits", "10/h"); // the bucket outlives the test: EXISTS finds it
        m.put("tollgate.jmx", "false");
        m.put("tollgate.metrics", "none");
        return RateLimiter.create(TestConfigs.of(m), "tls", null);
    }

    static Map<String, String> trust(Path truststore) {
        return Map.of("tollgate.redis.tls.truststore", truststore.toString(),
                "tollgate.redis.tls.truststore-password", TestCertificates.PASSWORD);
    }

    static Map<String, String> with(Map<String, String> a, String key, String value) {
        Map<String, String> m = new HashMap<>(a);
        m.put(key, value);
        return m;
    }

    /** Redis decided, and the bucket is in {@code redis} (asked on its plain port). */
    static void decidedBy(RedisProcess redis, RateLimiter rl, String client) {
        Decision d = rl.check(TestRequest.get("/api").from(client));
        assertEquals(Decision.Source.REDIS, d.source(), d + "; " + rl.health());
        assertEquals("1", redis.command("EXISTS", "tls:default:{ip=" + client + "}:default"), "the bucket is in this Redis");
    }

    /**
     * {@code tollgate.redis.tls=true} beside a {@code redis://} URI is TLS (issue 21): it used to talk
     * plaintext, silently. The server here listens for TLS only on its TLS port, so a plaintext
     * connection there would never be answered and the failure mode would decide.
     */
    @Test
    void tlsTrueWithAPlainSchemeIsTls() {
        Map<String, String> m = with(trust(certs.caPem()), "tollgate.redis.tls", "true");
        m.remove("tollgate.redis.tls.truststore-password");
        m.put("tollgate.redis.uri", "redis://127.0.0.1:" + serverTls);
        m.put("tollgate.redis.timeout", "2s");
        m.put("tollgate.redis.failure-mode", "closed");
        m.put("tollgate.redis.key-prefix", "tls:");
        m.put("tollgate.policy.default.limits", "10/h");
        m.put("tollgate.jmx", "false");
        m.put("tollgate.metrics", "none");
        TollgateConfig c = TestConfigs.of(m);
        assertTrue(TestConfigs.redis(c).tls(), TestConfigs.redis(c).describe());
        try (RateLimiter rl = RateLimiter.create(c, "tls", null)) {
            decidedBy(server, rl, "192.0.2.77");
        }
    }

    /** What the limiter logs on {@code dev.tollgate.redis} while {@code body} runs. */
    static List<String> logged(Runnable body) {
        List<String> lines = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                synchronized (lines) {
                    lines.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("dev.tollgate.redis");
        log.addHandler(h);
        try {
            body.run();
        } finally {
            log.removeHandler(h);
        }
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** Redis was not usable: the failure mode decided, and the log and health say why in {@code words}. */
    static void failedWith(RateLimiter rl, List<String> log, Decision.Source source, String... words) {
        Decision d = rl.check(TestRequest.get("/api").from("192.0.2.200"));
        assertEquals(source, d.source(), d + "; " + rl.health());
        String notReady = log.stream().filter(l -> l.startsWith(Messages.REDIS_NOT_READY)).findFirst().orElse("(none) in " + log);
        System.out.println("[tls] " + notReady);
        for (String w : words) {
            assertTrue(notReady.contains(w), "'" + w + "' in the start-up log: " + notReady);
            assertTrue(rl.health().lastFailure().contains(w), "'" + w + "' in health: " + rl.health());
        }
    }

    @Test
    void trustStoreAsPkcs12() {
        try (RateLimiter rl = limiter("127.0.0.1", serverTls, "local", trust(certs.caTrustStore()))) {
            decidedBy(server, rl, "192.0.2.1");
        }
    }

    @Test
    void trustStoreAsPemBundle() throws Exception {
        // a bundle of two CAs, the one that signed Redis' certificate second
        Path bundle = Files.createTempFile("tollgate-bundle-", ".pem");
        try {
            Files.writeString(bundle, Files.readString(certs.otherCaPem()) + Files.readString(certs.caPem()));
            try (RateLimiter rl = limiter("127.0.0.1", serverTls, "local", Map.of("tollgate.redis.tls.truststore", bundle.toString()))) {
                decidedBy(server, rl, "192.0.2.2");
            }
        } finally {
            Files.delete(bundle);
        }
    }

    @Test
    void mutualTlsWithTheClientKeyStore() {
        Map<String, String> tls = with(with(trust(certs.caTrustStore()), "tollgate.redis.tls.keystore", certs.clientKeyStore().toString()),
                "tollgate.redis.tls.keystore-password", TestCertificates.PASSWORD);
        try (RateLimiter rl = limiter("127.0.0.1", mutualTls, "local", tls)) {
            decidedBy(mutual, rl, "192.0.2.3");
        }
    }

    /** The client's key and chain as cert-manager writes them, {@code tls.key} (PKCS#8) and {@code tls.crt}. */
    @Test
    void mutualTlsWithAPemKeyAndCertificate() {
        Map<String, String> tls = with(with(trust(certs.caPem()), "tollgate.redis.tls.key", certs.clientKeyPem().toString()),
                "tollgate.redis.tls.certificate", certs.clientChainPem().toString());
        tls.remove("tollgate.redis.tls.truststore-password");
        try (RateLimiter rl = limiter("127.0.0.1", mutualTls, "local", tls)) {
            decidedBy(mutual, rl, "192.0.2.4");
        }
    }

    /** The key and its chain in one PEM file, given as the key store. */
    @Test
    void mutualTlsWithAPemBundleAsTheKeyStore() {
        Map<String, String> tls = with(trust(certs.caPem()), "tollgate.redis.tls.keystore", certs.clientBundlePem().toString());
        tls.remove("tollgate.redis.tls.truststore-password");
        try (RateLimiter rl = limiter("127.0.0.1", mutualTls, "local", tls)) {
            decidedBy(mutual, rl, "192.0.2.5");
        }
    }

    @Test
    void mutualTlsWithoutAClientCertificateFailsClearly() {
        RateLimiter[] rl = new RateLimiter[1];
        List<String> log = logged(() -> rl[0] = limiter("127.0.0.1", mutualTls, "local", trust(certs.caTrustStore())));
        try (RateLimiter r = rl[0]) {
            failedWith(r, log, Decision.Source.LOCAL, "client certificate", "tollgate.redis.tls.keystore");
        }
    }

    @Test
    void aCaThatSignedNothingOfRedisFailsClearlyAndTheFailureModeDecides() {
        for (String mode : List.of("local", "open", "closed")) {
            RateLimiter[] rl = new RateLimiter[1];
            List<String> log = logged(() -> rl[0] = limiter("127.0.0.1", serverTls, mode,
                    Map.of("tollgate.redis.tls.truststore", certs.otherCaPem().toString())));
            try (RateLimiter r = rl[0]) {
                Decision.Source expected = mode.equals("local") ? Decision.Source.LOCAL : Decision.Source.NONE;
                failedWith(r, log, expected, "not trusted", "tollgate.redis.tls.truststore");
                Decision d = r.check(TestRequest.get("/api").from("192.0.2.201"));
                assertEquals(mode.equals("closed") ? Decision.Verdict.UNAVAILABLE : Decision.Verdict.ALLOW, d.verdict(), mode);
            }
        }
    }

    @Test
    void theJvmsDefaultTrustStoreDoesNotTrustATestCa() {
        RateLimiter[] rl = new RateLimiter[1];
        List<String> log = logged(() -> rl[0] = limiter("127.0.0.1", serverTls, "local", Map.of()));
        try (RateLimiter r = rl[0]) {
            failedWith(r, log, Decision.Source.LOCAL, "not trusted", "tollgate.redis.tls.truststore");
        }
    }

    @Test
    void hostNameCheck() {
        RateLimiter[] rl = new RateLimiter[1];
        List<String> log = logged(() -> rl[0] = limiter("127.0.0.1", namelessTls, "local", trust(certs.caTrustStore())));
        try (RateLimiter r = rl[0]) {
            failedWith(r, log, Decision.Source.LOCAL, "does not name the host", "tollgate.redis.tls.verify-hostname");
        }
        try (RateLimiter r = limiter("127.0.0.1", namelessTls, "local",
                with(trust(certs.caTrustStore()), "tollgate.redis.tls.verify-hostname", "false"))) {
            decidedBy(nameless, r, "192.0.2.4");
        }
        // the certificate with names: by address and by DNS name
        try (RateLimiter r = limiter("localhost", serverTls, "local", trust(certs.caTrustStore()))) {
            decidedBy(server, r, "192.0.2.5");
        }
    }
}
