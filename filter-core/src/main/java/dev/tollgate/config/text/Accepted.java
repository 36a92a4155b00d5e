package dev.tollgate.config.text;

/**
 * What a kind of configuration value accepts, as an operator reads it after "Accepted:" in a
 * message. The texts live here, beside the settings that quote them, so that configuration names
 * no internal class for its words; the parsers inside Tollgate quote them from here. Constants
 * only; thread-safe.
 */
public final class Accepted {

    private Accepted() {
    }

    /** A duration, as {@code Durations} parses it. */
    public static final String DURATION = "a number with ms, s, min or h (e.g. '50ms', '1.5s'), or ISO-8601 (e.g. 'PT0.05S')";

    /** A policy's {@code key}, as {@code KeyResolvers} parses it. */
    public static final String KEY_RESOLVER = "'ip', 'header:<Name>', 'principal', 'route' or a custom resolver's name,"
            + " joined by '+' (all must be present), alternatives separated by ',' (the first present wins),"
            + " e.g. 'principal, ip' or 'header:X-Api-Key+route'";

    /** A policy's {@code match}, as {@code RequestPatterns} parses it. */
    public static final String REQUEST_PATTERN = "'[METHOD[|METHOD]] /path/pattern', several separated by ',',"
            + " e.g. '/api/**', 'POST /login', 'GET /search/**'; '*' matches within one path segment,"
            + " '**' any number of segments; GET covers HEAD too; no ';', '.' or '..' in a pattern";

    /** {@code tollgate.redis.tls.truststore}, as {@code RedisTls} reads it. */
    public static final String TLS_TRUSTSTORE = "a readable PKCS12 or JKS file, or a PEM file of CA certificates"
            + " (-----BEGIN CERTIFICATE----- blocks)";

    /** {@code tollgate.redis.tls.keystore}, as {@code RedisTls} reads it. */
    public static final String TLS_KEYSTORE = "a readable PKCS12 or JKS file holding the client's private key and certificate,"
            + " or a PEM file of both (an unencrypted PKCS#8 key, -----BEGIN PRIVATE KEY-----, and its certificate chain)";

    /** {@code tollgate.redis.tls.key}, as {@code RedisTls} reads it. */
    public static final String TLS_KEY = "a readable PEM file of the client's unencrypted PKCS#8 private key"
            + " (-----BEGIN PRIVATE KEY-----), together with tollgate.redis.tls.certificate";

    /** {@code tollgate.redis.tls.certificate}, as {@code RedisTls} reads it. */
    public static final String TLS_CERTIFICATE = "a readable PEM file of the client's certificate chain"
            + " (-----BEGIN CERTIFICATE----- blocks, the client's first), together with tollgate.redis.tls.key";
}
