package dev.tollgate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made when the tests run (no key is committed), with the JDK's {@code keytool}, in
 * a temporary directory of their own:
 * <ul>
 *   <li>a CA, as a PEM file and as a PKCS12 trust store holding only its certificate;</li>
 *   <li>a server certificate signed by it, naming {@code 127.0.0.1} and {@code localhost} in its
 *       subject alternative names, with its key as the PKCS#8 PEM that {@code redis-server} reads;</li>
 *   <li>a second certificate for the same key without those names (for the host name check);</li>
 *   <li>a client key store (PKCS12: the client's key, its certificate signed by the CA, the CA);</li>
 *   <li>another CA, which signed none of them.</li>
 * </ul>
 * Every store's password is {@link #PASSWORD}. Made once per JVM ({@link #shared()}); immutable after.
 */
public final class TestCertificates {

    public static final String PASSWORD = "test-store-pw";

    private static TestCertificates shared;

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** The certificates of this JVM, made on first use (a few seconds: keytool runs nine times). */
    public static synchronized TestCertificates shared() {
        if (shared == null) {
            try {
                Path dir = Files.createTempDirectory("tollgate-tls-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                shared = make(dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** PKCS12, the CA's certificate only. */
    public Path caTrustStore() {
        return dir.resolve("trust.p12");
    }

    public Path otherCaPem() {
        return dir.resolve("other-ca.pem");
    }

    public Path serverCertPem() {
        return dir.resolve("server.pem");
    }

    /** The server's certificate without subject alternative names (same key). */
    public Path serverCertWithoutNamesPem() {
        return dir.resolve("server-nosan.pem");
    }

    public Path serverKeyPem() {
        return dir.resolve("server.key");
    }

    /** PKCS12: the client's key and certificate chain. */
    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    /** PEM: the client's private key, unencrypted PKCS#8 (as cert-manager's {@code tls.key} with {@code encoding: PKCS8}). */
    public Path clientKeyPem() {
        return dir.resolve("client.key");
    }

    /** PEM: the client's certificate chain, its own certificate first, then the CA (as cert-manager's {@code tls.crt}). */
    public Path clientChainPem() {
        return dir.resolve("client-chain.pem");
    }

    /** PEM: the client's key and its certificate chain in one file. */
    public Path clientBundlePem() {
        return dir.resolve("client-bundle.pem");
    }

    /**
     * {@code redis-server} arguments for TLS on {@code tlsPort} (the plain port stays, for the
     * fixture's own commands) with this CA.
     *
     * @param withNames   the server certificate naming 127.0.0.1 and localhost, else the one without names
     * @param authClients whether Redis asks clients for a certificate signed by the CA
     */
    public String[] serverArgs(int tlsPort, boolean withNames, boolean authClients) {
        return new String[] {"--tls-port", Integer.toString(tlsPort),
                "--tls-cert-file", (withNames ? serverCertPem() : serverCertWithoutNamesPem()).toString(),
                "--tls-key-file", serverKeyPem().toString(), "--tls-ca-cert-file", caPem().toString(),
                "--tls-auth-clients", authClients ? "yes" : "no"};
    }

    private static TestCertificates make(Path dir) {
        TestCertificates c = new TestCertificates(dir);
        try {
            keytool(dir, "-genkeypair", "-alias", "ca", "-dname", "CN=Tollgate Test CA", "-ext", "bc:c",
                    "-keystore", "ca.p12");
            keytool(dir, "-genkeypair", "-alias", "ca", "-dname", "CN=Some Other CA", "-ext", "bc:c",
                    "-keystore", "other-ca.p12");
            keytool(dir, "-genkeypair", "-alias", "server", "-dname", "CN=tollgate-test-redis", "-keystore", "server.p12");
            keytool(dir, "-certreq", "-alias", "server", "-keystore", "server.p12", "-file", "server.csr");
            keytool(dir, "-gencert", "-alias", "ca", "-keystore", "ca.p12", "-infile", "server.csr", "-outfile",
                    "server.pem", "-rfc", "-ext", "SAN=ip:127.0.0.1,dns:localhost");
            keytool(dir, "-gencert", "-alias", "ca", "-keystore", "ca.p12", "-infile", "server.csr", "-outfile",
                    "server-nosan.pem", "-rfc");
            keytool(dir, "-genkeypair", "-alias", "client", "-dname", "CN=tollgate-test-client", "-keystore", "client.p12");
            keytool(dir, "-certreq", "-alias", "client", "-keystore", "client.p12", "-file", "client.csr");
            keytool(dir, "-gencert", "-alias", "ca", "-keystore", "ca.p12", "-infile", "client.csr", "-outfile",
                    "client.pem", "-rfc");

            KeyStore ca = load(dir.resolve("ca.p12"));
            Certificate caCert = ca.getCertificate("ca");
            Files.writeString(c.caPem(), pem("CERTIFICATE", caCert.getEncoded()));
            Files.writeString(c.otherCaPem(), pem("CERTIFICATE", load(dir.resolve("other-ca.p12")).getCertificate("ca").getEncoded()));
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCert);
            store(trust, c.caTrustStore());

            Key serverKey = load(dir.resolve("server.p12")).getKey("server", PASSWORD.toCharArray());
            Files.writeString(c.serverKeyPem(), pem("PRIVATE KEY", serverKey.getEncoded())); // getEncoded() is PKCS#8

            KeyStore client = load(c.clientKeyStore());
            List<Certificate> chain = new ArrayList<>();
            try (InputStream in = Files.newInputStream(dir.resolve("client.pem"))) {
                chain.addAll(CertificateFactory.getInstance("X.509").generateCertificates(in));
            }
            chain.add(caCert);
            client.setKeyEntry("client", client.getKey("client", PASSWORD.toCharArray()), PASSWORD.toCharArray(),
                    chain.toArray(new Certificate[0]));
            store(client, c.clientKeyStore());

            Key clientKey = client.getKey("client", PASSWORD.toCharArray());
            Files.writeString(c.clientKeyPem(), pem("PRIVATE KEY", clientKey.getEncoded())); // getEncoded() is PKCS#8
            StringBuilder chainPem = new StringBuilder();
            for (Certificate cert : chain) {
                chainPem.append(pem("CERTIFICATE", cert.getEncoded()));
            }
            Files.writeString(c.clientChainPem(), chainPem);
            Files.writeString(c.clientBundlePem(), Files.readString(c.clientKeyPem()) + chainPem);
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void delete(Path dir) {
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // best effort, at exit
        }
    }

    /** A PEM block of {@code der}. */
    public static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static KeyStore load(Path p) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    private static void store(KeyStore ks, Path p) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(p)) {
            ks.store(out, PASSWORD.toCharArray());
        }
    }

    /** Runs the JDK's keytool in {@code dir}: EC P-256 keys, PKCS12 stores, two days' validity. */
    private static void keytool(Path dir, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
        cmd.addAll(List.of(args));
        if (args[0].equals("-genkeypair")) {
            cmd.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-storetype", "PKCS12"));
        }
        if (!args[0].equals("-certreq")) {
            cmd.addAll(List.of("-validity", "2"));
        }
        cmd.addAll(List.of("-storepass", PASSWORD, "-noprompt"));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
