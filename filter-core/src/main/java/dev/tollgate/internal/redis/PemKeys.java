package dev.tollgate.internal.redis;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client's key and certificate chain from PEM text, as cert-manager and cloud consoles hand them
 * out ({@code tls.key}, {@code tls.crt}), made into a key store in memory for the TLS context. The
 * key must be unencrypted PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}); any other form is refused
 * with the command that converts it, and a certificate chain without the key's own certificate is
 * refused before a handshake could fail on it. Stateless and thread-safe.
 */
final class PemKeys {

    /** The password of the key store in memory: it never leaves this process, so it guards nothing. */
    static final char[] IN_MEMORY = new char[0];

    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*)-----END \\1-----");
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS");
    private static final String TO_PKCS8 = "openssl pkcs8 -topk8 -nocrypt -in tls.key -out tls-pkcs8.key";

    private PemKeys() {
    }

    /** Whether {@code bytes} look like PEM text. */
    static boolean isPem(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1).contains("-----BEGIN ");
    }

    /**
     * A key store of the one private key in {@code keyPem} and the certificates in {@code certificatePem}
     * (the same text for a bundle), the key's own certificate first.
     *
     * @param keyKey         the configuration key named when the key is unusable
     * @param certificateKey the configuration key named when the certificates are
     * @throws RedisTls.BadStoreException saying what is wrong and what is accepted
     */
    static KeyStore keyStore(byte[] keyPem, String keyKey, String keyAccepted, byte[] certificatePem,
                             String certificateKey, String certificateAccepted) throws GeneralSecurityException {
        PrivateKey key = privateKey(blocks(keyPem), keyKey, keyAccepted);
        List<X509Certificate> chain = certificates(blocks(certificatePem), certificateKey, certificateAccepted);
        int own = -1;
        for (int i = 0; i < chain.size() && own < 0; i++) {
            if (matches(key, chain.get(i).getPublicKey())) {
                own = i;
            }
        }
        if (own < 0) {
            throw new RedisTls.BadStoreException(certificateKey, "none of its " + chain.size() + " certificate(s) is the"
                    + " private key's own (" + chain.get(0).getSubjectX500Principal().getName() + " has another key)",
                    certificateAccepted);
        }
        List<Certificate> ordered = new ArrayList<>(chain);
        ordered.add(0, ordered.remove(own));
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new IllegalStateException(e); // an empty store reads nothing
        }
        store.setKeyEntry("client", key, IN_MEMORY, ordered.toArray(new Certificate[0]));
        return store;
    }

    private record Block(String type, String base64) {
    }

    private static List<Block> blocks(byte[] pem) {
        List<Block> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.ISO_8859_1));
        while (m.find()) {
            blocks.add(new Block(m.group(1), m.group(2)));
        }
        return blocks;
    }

    private static PrivateKey privateKey(List<Block> blocks, String key, String accepted) {
        List<Block> keys = new ArrayList<>();
        for (Block b : blocks) {
            if (b.type().equals("ENCRYPTED PRIVATE KEY")) {
                throw new RedisTls.BadStoreException(key, "its private key is encrypted; give it unencrypted (and readable by"
                        + " this process only), e.g. " + TO_PKCS8, accepted);
            }
            if (b.type().endsWith("PRIVATE KEY") && !b.type().equals("PRIVATE KEY")) {
                throw new RedisTls.BadStoreException(key, "its private key is a '" + b.type() + "' block, not PKCS#8 (in"
                        + " cert-manager, set the certificate's privateKey.encoding to PKCS8; or convert it: " + TO_PKCS8 + ")",
                        accepted);
            }
            if (b.type().equals("PRIVATE KEY")) {
                keys.add(b);
            }
        }
        if (keys.size() != 1) {
            throw new RedisTls.BadStoreException(key, keys.isEmpty() ? "it holds no private key (no -----BEGIN PRIVATE KEY-----"
                    + " block)" : "it holds " + keys.size() + " private keys, and a client shows one", accepted);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(keys.get(0).base64());
        } catch (IllegalArgumentException e) {
            throw new RedisTls.BadStoreException(key, "its private key is not valid base64 (" + e.getMessage() + ")", accepted);
        }
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                // not this algorithm: the next
            }
        }
        throw new RedisTls.BadStoreException(key, "its private key cannot be read as an RSA, EC or EdDSA PKCS#8 key", accepted);
    }

    private static List<X509Certificate> certificates(List<Block> blocks, String key, String accepted)
            throws GeneralSecurityException {
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        List<X509Certificate> chain = new ArrayList<>();
        for (Block b : blocks) {
            if (!b.type().equals("CERTIFICATE")) {
                continue;
            }
            try {
                chain.add((X509Certificate) x509.generateCertificate(
                        new ByteArrayInputStream(Base64.getMimeDecoder().decode(b.base64()))));
            } catch (IllegalArgumentException | CertificateException e) {
                throw new RedisTls.BadStoreException(key, "certificate " + (chain.size() + 1) + " of this PEM file cannot be"
                        + " read (" + e.getMessage() + ")", accepted);
            }
        }
        if (chain.isEmpty()) {
            throw new RedisTls.BadStoreException(key, "it holds no certificate (no -----BEGIN CERTIFICATE----- block), and a"
                    + " client key needs its certificate", accepted);
        }
        return chain;
    }

    /** Whether {@code publicKey} is {@code key}'s: a signature of the one verifies with the other. */
    private static boolean matches(PrivateKey key, PublicKey publicKey) {
        if (!key.getAlgorithm().equals(publicKey.getAlgorithm())
                && !(key.getAlgorithm().startsWith("RSA") && publicKey.getAlgorithm().startsWith("RSA"))) {
            return false;
        }
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        try {
            byte[] probe = "tollgate: is this certificate the key's own?".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                sign.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                verify.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            verify.initVerify(publicKey);
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
