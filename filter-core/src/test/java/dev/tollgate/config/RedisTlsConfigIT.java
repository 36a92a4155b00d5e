package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.RateLimiter;
import dev.tollgate.internal.engine.OpenChecks;
import dev.tollgate.testing.TestCertificates;
import dev.tollgate.testing.TestConfigs;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TLS keys stop start-up when their files cannot serve: each problem names the key, shows the
 * value (never a password), and says what is accepted. Uses stores made by {@link TestCertificates}
 * (keytool, a few seconds: hence an IT although no Redis is involved).
 */
class RedisTlsConfigIT {

    static final String TRUSTSTORE = Settings.REDIS_TLS_TRUSTSTORE.name();
    static final String TRUSTSTORE_PASSWORD = Settings.REDIS_TLS_TRUSTSTORE_PASSWORD.name();
    static final String KEYSTORE = Settings.REDIS_TLS_KEYSTORE.name();
    static final String KEYSTORE_PASSWORD = Settings.REDIS_TLS_KEYSTORE_PASSWORD.name();
    static final String KEY = Settings.REDIS_TLS_KEY.name();
    static final String CERTIFICATE = Settings.REDIS_TLS_CERTIFICATE.name();
    static final String WRONG = "not-the-password";

    static TestCertificates certs;
    static Path scratch;

    @BeforeAll
    static void make() throws Exception {
        certs = TestCertificates.shared();
        scratch = Files.createTempDirectory("tollgate-tls-config-");
    }

    @AfterAll
    static void clean() throws Exception {
        try (var files = Files.list(scratch)) {
            for (Path p : files.collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
        Files.delete(scratch);
    }

    static TollgateConfig load(Map<String, String> tls) {
        Map<String, String> m = new HashMap<>(tls);
        m.putIfAbsent(Settings.REDIS_URI.name(), "rediss://127.0.0.1:6380");
        m.put("tollgate.policy.default.limits", "10/s");
        return TestConfigs.of(m);
    }

    static Map<String, String> map(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /**
     * The one problem of {@code tls}: it names {@code key} with {@code shownValue}, says {@code why}
     * and what is accepted. Found by the configuration (a password without its store) or, for a
     * store that cannot be read, by the engine when it opens ({@link OpenChecks}): either way a
     * start with it stops.
     */
    static String refused(Map<String, String> tls, String key, String shownValue, String why) {
        ConfigException e = assertThrows(ConfigException.class, () -> OpenChecks.check(load(tls)));
        List<String> problems = e.problems();
        assertEquals(1, problems.size(), "one problem: " + problems);
        String p = problems.get(0);
        System.out.println("[tls-config] " + p);
        assertTrue(p.startsWith("TOLLGATE-001: " + key + " = '" + shownValue + "' (from test) is not valid: "), p);
        assertTrue(p.contains(why), "'" + why + "' in " + p);
        assertTrue(p.contains(". Accepted: "), p);
        assertFalse(p.contains(TestCertificates.PASSWORD) || p.contains(WRONG), "never a password: " + p);
        return p;
    }

    @Test
    void storesThatServeLoad() throws Exception {
        Path jks = scratch.resolve("trust.jks");
        KeyStore ks = KeyStore.getInstance("JKS");
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(certs.caTrustStore())) {
            KeyStore p12 = KeyStore.getInstance("PKCS12");
            p12.load(in, TestCertificates.PASSWORD.toCharArray());
            ks.setCertificateEntry("ca", p12.getCertificate("ca"));
        }
        try (OutputStream out = Files.newOutputStream(jks)) {
            ks.store(out, TestCertificates.PASSWORD.toCharArray());
        }
        for (Path trust : List.of(certs.caTrustStore(), jks, certs.caPem())) {
            TollgateConfig c = load(map(TRUSTSTORE, trust.toString(), TRUSTSTORE_PASSWORD, TestCertificates.PASSWORD,
                    KEYSTORE, certs.clientKeyStore().toString(), KEYSTORE_PASSWORD, TestCertificates.PASSWORD,
                    Settings.REDIS_TLS_VERIFY_HOSTNAME.name(), "false"));
            RedisSettings.TlsOptions o = TestConfigs.redis(c).tlsOptions();
            assertEquals(RedisSettings.TlsOptions.builder().truststore(trust.toString(), TestCertificates.PASSWORD)
                    .keystore(certs.clientKeyStore().toString(), TestCertificates.PASSWORD).verifyHostname(false).build(), o);
            assertFalse(o.toString().contains(TestCertificates.PASSWORD), o.toString());
            assertFalse(TestConfigs.redis(c).toString().contains(TestCertificates.PASSWORD), TestConfigs.redis(c).toString());
        }
        assertEquals(RedisSettings.TlsOptions.DEFAULT, TestConfigs.redis(load(Map.of())).tlsOptions(), "no TLS key: the JVM's defaults");
    }

    /** The engine's check is the start's: a store that cannot be read stops {@code RateLimiter.create}, and a reload that brings one is refused. */
    @Test
    void aStoreThatCannotBeReadStopsTheStartAndIsRefusedByAReload() throws Exception {
        // a file that is there but holds no store: the configuration takes it, the engine refuses it when it opens
        String missing = Files.writeString(scratch.resolve("no-store.p12"), "not a key store").toString();
        Map<String, String> tls = map(TRUSTSTORE, missing, "tollgate.metrics", "none", "tollgate.jmx", "false");
        TollgateConfig loaded = load(tls);
        ConfigException start = assertThrows(ConfigException.class, () -> RateLimiter.create(loaded, "tls-start", null));
        assertEquals(1, start.problems().size(), start.problems().toString());
        assertTrue(start.problems().get(0).startsWith("TOLLGATE-001: " + TRUSTSTORE + " = '" + missing + "' (from test) is not valid: "),
                start.problems().toString());

        Map<String, String> now = new HashMap<>(map(TRUSTSTORE, certs.caPem().toString(), "tollgate.metrics", "none",
                "tollgate.jmx", "false"));
        try (RateLimiter rl = RateLimiter.create(load(now), "tls-reload", () -> load(now))) {
            TollgateConfig before = rl.config();
            now.put(TRUSTSTORE, missing);
            ConfigException reload = assertThrows(ConfigException.class, rl::reload);
            assertEquals(start.problems(), reload.problems());
            assertEquals(before, rl.config(), "the configuration in force stays");
        }
    }

    @Test
    void aMissingFile() {
        String missing = scratch.resolve("missing.p12").toString();
        refused(map(TRUSTSTORE, missing), TRUSTSTORE, missing, "the file does not exist");
        refused(map(KEYSTORE, missing), KEYSTORE, missing, "the file does not exist");
        refused(map(TRUSTSTORE, scratch.toString()), TRUSTSTORE, scratch.toString(), "it is a directory");
    }

    @Test
    void anUnreadableFile() throws Exception {
        Path locked = Files.copy(certs.caPem(), scratch.resolve("locked.pem"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        // root reads any file: then a file that exists and fails every read
        Path unreadable = Files.isReadable(locked) ? Path.of("/proc/self/mem") : locked;
        refused(map(TRUSTSTORE, unreadable.toString()), TRUSTSTORE, unreadable.toString(), "the file cannot be read");
    }

    @Test
    void aWrongPassword() {
        refused(map(TRUSTSTORE, certs.caTrustStore().toString(), TRUSTSTORE_PASSWORD, WRONG), TRUSTSTORE_PASSWORD, "****",
                "it does not open " + TRUSTSTORE + " (wrong password)");
        refused(map(KEYSTORE, certs.clientKeyStore().toString(), KEYSTORE_PASSWORD, WRONG), KEYSTORE_PASSWORD, "****",
                "it does not open " + KEYSTORE + " (wrong password)");
        refused(map(KEYSTORE, certs.clientKeyStore().toString()), KEYSTORE, certs.clientKeyStore().toString(),
                "set " + KEYSTORE_PASSWORD);
    }

    @Test
    void aPemFileWithoutACertificate() {
        // the server's private key: PEM, but no certificate in it
        refused(map(TRUSTSTORE, certs.serverKeyPem().toString()), TRUSTSTORE, certs.serverKeyPem().toString(),
                "it is a PEM file without a certificate");
    }

    @Test
    void aFileOfNoKnownFormat() throws Exception {
        Path junk = scratch.resolve("junk.p12");
        byte[] bytes = new byte[2048];
        new Random(7).nextBytes(bytes);
        Files.write(junk, bytes);
        refused(map(TRUSTSTORE, junk.toString()), TRUSTSTORE, junk.toString(), "it is neither a PKCS12, JKS nor PEM file");
    }

    @Test
    void aKeyStoreWithoutAKey() {
        refused(map(KEYSTORE, certs.caTrustStore().toString(), KEYSTORE_PASSWORD, TestCertificates.PASSWORD), KEYSTORE,
                certs.caTrustStore().toString(), "it holds no private key");
        // a PEM file of a key alone, given as the key store: the certificate is missing
        refused(map(KEYSTORE, certs.serverKeyPem().toString()), KEYSTORE, certs.serverKeyPem().toString(),
                "it holds no certificate");
    }

    @Test
    void pemKeysThatServeLoad() {
        OpenChecks.check(load(map(KEY, certs.clientKeyPem().toString(), CERTIFICATE, certs.clientChainPem().toString())));
        OpenChecks.check(load(map(KEYSTORE, certs.clientBundlePem().toString())));
    }

    @Test
    void aPemKeyWithoutItsCertificateOrTheOtherWay() {
        refused(map(KEY, certs.clientKeyPem().toString()), KEY, certs.clientKeyPem().toString(),
                CERTIFICATE + " is not set");
        refused(map(CERTIFICATE, certs.clientChainPem().toString()), CERTIFICATE, certs.clientChainPem().toString(),
                KEY + " is not set");
        refused(map(KEY, certs.clientKeyPem().toString(), CERTIFICATE, certs.clientChainPem().toString(), KEYSTORE,
                certs.clientKeyStore().toString(), KEYSTORE_PASSWORD, TestCertificates.PASSWORD), KEY,
                certs.clientKeyPem().toString(), KEYSTORE + " is set too");
    }

    @Test
    void aPemKeyOfAnotherCertificate() {
        // the server's key beside the client's chain: no certificate there is the key's own
        refused(map(KEY, certs.serverKeyPem().toString(), CERTIFICATE, certs.clientChainPem().toString()), CERTIFICATE,
                certs.clientChainPem().toString(), "is the private key's own");
    }

    @Test
    void pemKeysInAFormThatIsNotUnencryptedPkcs8() throws Exception {
        String der = Files.readString(certs.clientKeyPem()).replace("-----BEGIN PRIVATE KEY-----", "").replace(
                "-----END PRIVATE KEY-----", "");
        Path pkcs1 = scratch.resolve("rsa.key");
        Files.writeString(pkcs1, "-----BEGIN RSA PRIVATE KEY-----" + der + "-----END RSA PRIVATE KEY-----\n");
        refused(map(KEY, pkcs1.toString(), CERTIFICATE, certs.clientChainPem().toString()), KEY, pkcs1.toString(),
                "not PKCS#8 (in cert-manager, set the certificate's privateKey.encoding to PKCS8");
        Path encrypted = scratch.resolve("encrypted.key");
        Files.writeString(encrypted, "-----BEGIN ENCRYPTED PRIVATE KEY-----" + der + "-----END ENCRYPTED PRIVATE KEY-----\n");
        refused(map(KEY, encrypted.toString(), CERTIFICATE, certs.clientChainPem().toString()), KEY, encrypted.toString(),
                "its private key is encrypted");
        // the chain given as the key: no key in it
        refused(map(KEY, certs.clientChainPem().toString(), CERTIFICATE, certs.clientChainPem().toString()), KEY,
                certs.clientChainPem().toString(), "it holds no private key");
        Path garbled = scratch.resolve("garbled.key");
        Files.writeString(garbled, "-----BEGIN PRIVATE KEY-----\n" + java.util.Base64.getEncoder().encodeToString(
                "a block of the right name whose bytes are no key".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                + "\n-----END PRIVATE KEY-----\n");
        refused(map(KEY, garbled.toString(), CERTIFICATE, certs.clientChainPem().toString()), KEY, garbled.toString(),
                "cannot be read as an RSA, EC or EdDSA PKCS#8 key");
    }

    @Test
    void aPasswordWithoutItsStore() {
        refused(map(TRUSTSTORE_PASSWORD, "x"), TRUSTSTORE_PASSWORD, "****", "it is the password of " + TRUSTSTORE);
        refused(map(KEYSTORE_PASSWORD, "x"), KEYSTORE_PASSWORD, "****", "it is the password of " + KEYSTORE);
    }

    @Test
    void tlsKeysWhileTlsIsOff() {
        refused(map(Settings.REDIS_URI.name(), "redis://127.0.0.1:6379", TRUSTSTORE, certs.caPem().toString()), TRUSTSTORE,
                certs.caPem().toString(), "TLS is off");
        refused(map(Settings.REDIS_URI.name(), "redis://127.0.0.1:6379", Settings.REDIS_TLS_VERIFY_HOSTNAME.name(), "false"),
                Settings.REDIS_TLS_VERIFY_HOSTNAME.name(), "false", "TLS is off");
        refused(map(Settings.REDIS_TLS_VERIFY_HOSTNAME.name(), "maybe"), Settings.REDIS_TLS_VERIFY_HOSTNAME.name(), "maybe", "boolean");
    }
}
