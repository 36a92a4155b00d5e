package dev.tollgate.internal.redis;

import dev.tollgate.config.text.Accepted;
import dev.tollgate.config.Settings;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.internal.Messages;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.UnrecoverableKeyException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * TLS to Redis as configured ({@code tollgate.redis.tls.*}): one socket factory, made from the
 * trust store and the client's key store, and the host name check, handed alike to every Jedis
 * client config (the server, each Cluster node, the sentinels); and TLS failures told in words an
 * operator can act on. Immutable and thread-safe.
 *
 * <p>Longer than most classes on purpose: loading and checking trust and key stores, and naming
 * the key, value and what is accepted for every way one can be unusable, is one job.
 */
public final class RedisTls {

    private static final String TRUST_ACCEPTED = Accepted.TLS_TRUSTSTORE;
    private static final String KEY_ACCEPTED = Accepted.TLS_KEYSTORE;
    /** Far more than any trust or key store; bounds what a wrong path (a device, a log) makes us read. */
    static final int MAX_STORE_BYTES = 1 << 20;
    private static final Pattern PEM_CERTIFICATE =
            Pattern.compile("-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\\s]*)-----END CERTIFICATE-----");

    private final boolean on;
    /** {@code null} without TLS. */
    private final SSLSocketFactory factory;
    private final boolean verifyHostname;

    private RedisTls(boolean on, SSLSocketFactory factory, boolean verifyHostname) {
        this.on = on;
        this.factory = factory;
        this.verifyHostname = verifyHostname;
    }

    /**
     * TLS for these settings, its stores read now.
     *
     * @throws BadStoreException when a store cannot be used (the files changed since start-up)
     */
    static RedisTls of(RedisSettings settings) {
        LAST_HANDSHAKE_FAILURE.remove();
        RedisSettings.TlsOptions options = settings.tlsOptions();
        if (!settings.tls()) {
            return new RedisTls(false, null, options.verifyHostname());
        }
        SSLContext context = context(options);
        // the JVM's own context may hold a client certificate (javax.net.ssl.keyStore): not asked then
        SSLSocketFactory factory = context == null ? (SSLSocketFactory) SSLSocketFactory.getDefault() : context.getSocketFactory();
        return new RedisTls(true, new HandshakeFirst(factory, options.verifyHostname(), context == null || options.hasClientCertificate()),
                options.verifyHostname());
    }

    /** {@code builder} with this TLS: on or off, the socket factory, the host name check. */
    DefaultJedisClientConfig.Builder configure(DefaultJedisClientConfig.Builder builder) {
        builder.ssl(on);
        if (!on) {
            return builder;
        }
        builder.sslSocketFactory(factory);
        // Jedis checks the host name only when it is given no parameters; these say it either way
        SSLParameters parameters = new SSLParameters();
        parameters.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
        return builder.sslParameters(parameters);
    }

    /** The socket factory every client config gets; {@code null} without TLS. */
    SSLSocketFactory socketFactory() {
        return factory;
    }

    /**
     * The TLS context of these options, or {@code null} when they name no store (the JVM's
     * default then applies). Reads the files; start-up calls it to check them.
     *
     * @throws BadStoreException naming the key whose file or password cannot be used
     */
    public static SSLContext context(RedisSettings.TlsOptions options) {
        if (options.truststore() == null && !options.hasClientCertificate()) {
            return null;
        }
        try {
            TrustManagerFactory trust = null;
            if (options.truststore() != null) {
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(trustStore(options.truststore(), options.truststorePassword()));
            }
            KeyManager[] keys = {new NoClientCertificate()};
            if (options.hasClientCertificate()) {
                KeyManagerFactory f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                if (options.clientKey() != null) {
                    f.init(PemKeys.keyStore(read(options.clientKey(), Settings.REDIS_TLS_KEY.name(), Accepted.TLS_KEY),
                            Settings.REDIS_TLS_KEY.name(), Accepted.TLS_KEY, read(options.clientCertificate(),
                                    Settings.REDIS_TLS_CERTIFICATE.name(), Accepted.TLS_CERTIFICATE),
                            Settings.REDIS_TLS_CERTIFICATE.name(), Accepted.TLS_CERTIFICATE), PemKeys.IN_MEMORY);
                } else {
                    byte[] bytes = read(options.keystore(), Settings.REDIS_TLS_KEYSTORE.name(), KEY_ACCEPTED);
                    if (PemKeys.isPem(bytes)) { // a bundle of the key and its chain
                        f.init(PemKeys.keyStore(bytes, Settings.REDIS_TLS_KEYSTORE.name(), KEY_ACCEPTED, bytes,
                                Settings.REDIS_TLS_KEYSTORE.name(), KEY_ACCEPTED), PemKeys.IN_MEMORY);
                    } else {
                        f.init(keyStore(bytes, options.keystorePassword()), chars(options.keystorePassword()));
                    }
                }
                keys = f.getKeyManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust == null ? null : trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot make a TLS context: " + e, e);
        }
    }

    private static KeyStore trustStore(String path, String password) throws GeneralSecurityException {
        String key = Settings.REDIS_TLS_TRUSTSTORE.name();
        byte[] bytes = read(path, key, TRUST_ACCEPTED);
        KeyStore store = pem(bytes) ? pemCertificates(bytes) : load(bytes, password, key,
                Settings.REDIS_TLS_TRUSTSTORE_PASSWORD.name(), TRUST_ACCEPTED);
        for (String alias : Collections.list(store.aliases())) {
            if (store.getCertificate(alias) != null) {
                return store;
            }
        }
        throw new BadStoreException(key, "it holds no certificate" + (password == null && !pem(bytes)
                ? " it can read without a password (set " + Settings.REDIS_TLS_TRUSTSTORE_PASSWORD.name() + ")" : ""), TRUST_ACCEPTED);
    }

    private static KeyStore keyStore(byte[] bytes, String password) throws GeneralSecurityException {
        String key = Settings.REDIS_TLS_KEYSTORE.name();
        String passwordKey = Settings.REDIS_TLS_KEYSTORE_PASSWORD.name();
        KeyStore store = load(bytes, password, key, passwordKey, KEY_ACCEPTED);
        List<String> keys = new ArrayList<>();
        for (String alias : Collections.list(store.aliases())) {
            if (store.isKeyEntry(alias)) {
                keys.add(alias);
            }
        }
        if (keys.isEmpty()) {
            throw new BadStoreException(key, "it holds no private key (only certificates), and a client certificate"
                    + " needs its key", KEY_ACCEPTED);
        }
        for (String alias : keys) {
            try {
                store.getKey(alias, chars(password));
            } catch (UnrecoverableKeyException e) {
                throw password == null
                        ? new BadStoreException(key, "its key '" + alias + "' needs a password: set " + passwordKey, KEY_ACCEPTED)
                        : new BadStoreException(passwordKey, "it opens " + key + " but not its key '" + alias
                                + "' (the key's password must be the store's)", "the password of " + key + " and of its key");
            }
        }
        return store;
    }

    /** A PKCS12 or JKS store (either type reads both, but is tried in turn should the JVM not say so). */
    private static KeyStore load(byte[] bytes, String password, String key, String passwordKey, String accepted)
            throws GeneralSecurityException {
        IOException last = null;
        for (String type : List.of("PKCS12", "JKS")) {
            KeyStore store = KeyStore.getInstance(type);
            try {
                store.load(new ByteArrayInputStream(bytes), password == null ? null : password.toCharArray());
                return store;
            } catch (IOException e) {
                if (e.getCause() instanceof UnrecoverableKeyException) {
                    throw password == null
                            ? new BadStoreException(key, "it needs a password: set " + passwordKey, accepted)
                            : new BadStoreException(passwordKey, "it does not open " + key + " (wrong password)",
                                    "the password of " + key);
                }
                last = e;
            } catch (CertificateException e) {
                throw new BadStoreException(key, "a certificate in it cannot be read (" + e.getMessage() + ")", accepted);
            }
        }
        throw new BadStoreException(key, "it is neither a PKCS12, JKS nor PEM file (" + last.getMessage() + ")", accepted);
    }

    private static boolean pem(byte[] bytes) {
        return PemKeys.isPem(bytes);
    }

    /** The certificates of a PEM bundle, as trusted entries of a store in memory; anything else in the file is ignored. */
    private static KeyStore pemCertificates(byte[] bytes) throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new IllegalStateException(e); // an empty store reads nothing
        }
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        Matcher m = PEM_CERTIFICATE.matcher(new String(bytes, StandardCharsets.ISO_8859_1));
        int n = 0;
        while (m.find()) {
            n++;
            try {
                byte[] der = Base64.getMimeDecoder().decode(m.group(1));
                store.setCertificateEntry("ca-" + n, x509.generateCertificate(new ByteArrayInputStream(der)));
            } catch (IllegalArgumentException | CertificateException e) {
                throw new BadStoreException(Settings.REDIS_TLS_TRUSTSTORE.name(), "certificate " + n + " of this PEM file cannot be"
                        + " read (" + e.getMessage() + ")", TRUST_ACCEPTED);
            }
        }
        if (n == 0) {
            throw new BadStoreException(Settings.REDIS_TLS_TRUSTSTORE.name(), "it is a PEM file without a certificate (no"
                    + " -----BEGIN CERTIFICATE----- block)", TRUST_ACCEPTED);
        }
        return store;
    }

    private static byte[] read(String path, String key, String accepted) {
        Path file;
        try {
            file = Path.of(path);
        } catch (InvalidPathException e) {
            throw new BadStoreException(key, "it is not a file path (" + e.getReason() + ")", accepted);
        }
        if (!Files.exists(file)) {
            throw new BadStoreException(key, "the file does not exist (or is out of this process's reach)", accepted);
        }
        if (Files.isDirectory(file)) {
            throw new BadStoreException(key, "it is a directory, not a file", accepted);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_STORE_BYTES + 1);
            if (bytes.length > MAX_STORE_BYTES) {
                throw new BadStoreException(key, "it is larger than " + MAX_STORE_BYTES / 1024 + " KiB, too large for a key store",
                        accepted);
            }
            return bytes;
        } catch (IOException e) {
            throw new BadStoreException(key, "the file cannot be read (" + e + ")", accepted);
        }
    }

    private static char[] chars(String password) {
        return password == null ? new char[0] : password.toCharArray();
    }

    /**
     * {@code e}, or when TLS made it fail, a failure that says which check failed and which key to
     * set (the original as its cause).
     */
    static RuntimeException explained(RuntimeException e) {
        String why = why(e);
        return why == null ? e : new JedisConnectionException(why, e);
    }

    /**
     * {@link #explained}, for a client being built on this thread since {@link #of}: when Jedis
     * dropped the cause (a Sentinel client that reached no sentinel says only "All sentinels
     * down"), the last handshake that failed on this thread tells what TLS check failed.
     */
    static RuntimeException explainedConnecting(RuntimeException e) {
        SSLException last = LAST_HANDSHAKE_FAILURE.get();
        LAST_HANDSHAKE_FAILURE.remove();
        String why = why(e);
        if (why == null && last != null) {
            why = why(last);
        }
        return why == null ? e : new JedisConnectionException(why, e);
    }

    /**
     * What TLS check made {@code e} fail and what to do, or {@code null} when TLS did not. Looks at
     * causes and at suppressed failures: a Cluster client that could reach no seed throws a failure
     * of its own with each seed's failure suppressed in it.
     */
    static String why(Throwable e) {
        // causes and suppressed failures, nearest first; at most 64 (a chain may loop)
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        chain.add(e);
        seen.add(e);
        for (int i = 0; i < chain.size() && chain.size() < 64; i++) {
            Throwable t = chain.get(i);
            if (t.getCause() != null && seen.add(t.getCause())) {
                chain.add(t.getCause());
            }
            for (Throwable s : t.getSuppressed()) {
                if (seen.add(s)) {
                    chain.add(s);
                }
            }
        }
        SSLException ssl = null;
        for (Throwable t : chain) {
            String m = String.valueOf(t.getMessage());
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
                return "TLS to Redis failed: the server's certificate is not trusted (" + detail(t) + "). Set "
                        + Settings.REDIS_TLS_TRUSTSTORE.name() + " to the CA certificate that signed it (PEM, PKCS12 or JKS)";
            }
            if (t instanceof CertificateException && (m.startsWith("No subject alternative") || m.startsWith("No name matching"))) {
                return "TLS to Redis failed: the server's certificate does not name the host connected to (" + detail(t)
                        + "). Connect by a name or address in its subject alternative names, or set "
                        + Settings.REDIS_TLS_VERIFY_HOSTNAME.name() + "=false";
            }
            if (t instanceof SSLException s && ssl == null) {
                ssl = s;
            }
        }
        if (ssl == null) {
            return null;
        }
        String m = String.valueOf(ssl.getMessage());
        if (m.contains("certificate_required")) {
            return "TLS to Redis failed: Redis asks for a client certificate (its tls-auth-clients) and none was sent ("
                    + detail(ssl) + "). Set " + Settings.REDIS_TLS_KEYSTORE.name() + " to the client's key and certificate (or "
                    + Settings.REDIS_TLS_KEY.name() + " and " + Settings.REDIS_TLS_CERTIFICATE.name() + " to PEM files of them)";
        }
        if (m.contains("bad_certificate") || m.contains("unknown_ca") || m.contains("certificate_unknown")) {
            return "TLS to Redis failed: Redis refused the client certificate (" + detail(ssl) + "). The client certificate ("
                    + Settings.REDIS_TLS_KEYSTORE.name() + " or " + Settings.REDIS_TLS_CERTIFICATE.name() + ") must be signed by a CA Redis trusts (its tls-ca-cert-file)";
        }
        if (m.contains("nrecognized SSL message")) {
            return "TLS to Redis failed: the server does not speak TLS on this port (" + detail(ssl) + "). Use its"
                    + " tls-port, or turn TLS off";
        }
        return "TLS to Redis failed (" + detail(ssl) + ")";
    }

    private static String detail(Throwable t) {
        return Messages.printable(t.getClass().getSimpleName() + ": " + t.getMessage(), 300);
    }

    /** The last handshake on this thread that failed, if none succeeded since. */
    private static final ThreadLocal<SSLException> LAST_HANDSHAKE_FAILURE = new ThreadLocal<>();

    /** Whether the server asked this thread's handshake for a client certificate (set by {@link NoClientCertificate}). */
    private static final ThreadLocal<Boolean> ASKED_FOR_CERTIFICATE = new ThreadLocal<>();

    /** The key manager without a key: it notes that the server asked for one. */
    private static final class NoClientCertificate extends X509ExtendedKeyManager {
        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            ASKED_FOR_CERTIFICATE.set(Boolean.TRUE);
            return null;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            ASKED_FOR_CERTIFICATE.set(Boolean.TRUE);
            return null;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return null;
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return null;
        }
    }

    /**
     * Sockets that finish their handshake as they are made, checking the host name in it. Over TLS
     * 1.3 a server that wants a client certificate learns it has none only after the client's
     * handshake is done, and closes the connection: the client's first command then fails with a
     * bare "Broken pipe". The handshake notes the server's request, so the failure is told here.
     */
    private static final class HandshakeFirst extends SSLSocketFactory {
        private final SSLSocketFactory delegate;
        private final boolean verifyHostname;
        private final boolean hasClientCertificate;

        HandshakeFirst(SSLSocketFactory delegate, boolean verifyHostname, boolean hasClientCertificate) {
            this.delegate = delegate;
            this.verifyHostname = verifyHostname;
            this.hasClientCertificate = hasClientCertificate;
        }

        @Override
        public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
            SSLSocket socket = (SSLSocket) delegate.createSocket(s, host, port, autoClose);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
            socket.setSSLParameters(parameters);
            boolean asked;
            try {
                ASKED_FOR_CERTIFICATE.remove();
                socket.startHandshake();
            } catch (SSLException e) {
                LAST_HANDSHAKE_FAILURE.set(e);
                throw e;
            } finally {
                asked = ASKED_FOR_CERTIFICATE.get() != null;
                ASKED_FOR_CERTIFICATE.remove();
            }
            if (asked && !hasClientCertificate) {
                socket.close();
                SSLException e = new SSLHandshakeException("the server asks for a client certificate and this client has"
                        + " none (certificate_required)");
                LAST_HANDSHAKE_FAILURE.set(e);
                throw e;
            }
            LAST_HANDSHAKE_FAILURE.remove();
            return socket;
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return delegate.createSocket(host, port);
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return delegate.createSocket(host, port, localHost, localPort);
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return delegate.createSocket(host, port);
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
            return delegate.createSocket(address, port, localAddress, localPort);
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return delegate.getDefaultCipherSuites();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return delegate.getSupportedCipherSuites();
        }
    }

    /** A store or its password that cannot be used: which key, why, and what it accepts. */
    public static final class BadStoreException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String key;
        private final String accepted;

        BadStoreException(String key, String reason, String accepted) {
            super(reason, null, false, false);
            this.key = key;
            this.accepted = accepted;
        }

        /** The configuration key whose value is wrong. */
        public String key() {
            return key;
        }

        /** What the key accepts. */
        public String accepted() {
            return accepted;
        }

        /** With the key: when a store changed after start-up, a reconnect's failure is logged so. */
        @Override
        public String toString() {
            return "TLS store unusable: " + key + ": " + getMessage() + ". Accepted: " + accepted;
        }
    }
}
