package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.RedisSettings;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * How {@link RedisTls} hands TLS to Jedis and tells TLS failures, without a server (the
 * handshakes themselves are in {@code RedisTlsIT} and {@code RedisTlsTopologiesIT}).
 */
class RedisTlsTest {

    static RedisSettings settings(boolean tls, boolean verifyHostname) {
        return RedisSettings.builder(new RedisSettings.Sentinel("m", List.of("127.0.0.1:26379"))).tls(tls)
                .timeout(Duration.ofMillis(100)).poolSize(4).circuit(3, Duration.ofSeconds(1)).autoPipelining(true)
                .tlsOptions(RedisSettings.TlsOptions.builder().verifyHostname(verifyHostname).build()).build();
    }

    @Test
    void theServersAndTheSentinelsConfigsGetTheSameSocketFactory() {
        RedisTls tls = RedisTls.of(settings(true, true));
        JedisClientConfig server = tls.configure(DefaultJedisClientConfig.builder()).clientName("tollgate").build();
        JedisClientConfig sentinel = tls.configure(DefaultJedisClientConfig.builder()).build();
        assertTrue(server.isSsl() && sentinel.isSsl());
        assertNotNull(tls.socketFactory());
        assertSame(tls.socketFactory(), server.getSslSocketFactory());
        assertSame(tls.socketFactory(), sentinel.getSslSocketFactory());
        assertEquals("HTTPS", server.getSslParameters().getEndpointIdentificationAlgorithm());
        assertNull(RedisTls.of(settings(true, false)).configure(DefaultJedisClientConfig.builder()).build()
                .getSslParameters().getEndpointIdentificationAlgorithm(), "verify-hostname=false: no host name check");
    }

    @Test
    void withoutTlsNothingIsSet() {
        JedisClientConfig c = RedisTls.of(settings(false, true)).configure(DefaultJedisClientConfig.builder()).build();
        assertFalse(c.isSsl());
        assertNull(c.getSslSocketFactory());
        assertNull(c.getSslParameters());
    }

    @Test
    void eachTlsFailureSaysWhatFailedAndWhichKeyToSet() {
        RuntimeException untrusted = new JedisConnectionException("Failed to create socket.", new SSLHandshakeException(
                "PKIX path building failed").initCause(new CertPathBuilderException("unable to find valid certification path")));
        assertTrue(RedisTls.why(untrusted).contains("not trusted") && RedisTls.why(untrusted).contains("tollgate.redis.tls.truststore"));

        RuntimeException hostname = new JedisConnectionException(new SSLHandshakeException("No subject alternative")
                .initCause(new CertificateException("No subject alternative names matching IP address 10.0.0.1 found")));
        assertTrue(RedisTls.why(hostname).contains("does not name the host")
                && RedisTls.why(hostname).contains("tollgate.redis.tls.verify-hostname=false"), RedisTls.why(hostname));

        RuntimeException noCertificate = new JedisConnectionException(new SSLException("Received fatal alert: certificate_required"));
        assertTrue(RedisTls.why(noCertificate).contains("tollgate.redis.tls.keystore"), RedisTls.why(noCertificate));

        RuntimeException refusedCertificate = new JedisConnectionException(new SSLException("Received fatal alert: unknown_ca"));
        assertTrue(RedisTls.why(refusedCertificate).contains("tls-ca-cert-file"), RedisTls.why(refusedCertificate));

        RuntimeException plainPort = new JedisConnectionException(new SSLException("Unsupported or unrecognized SSL message"));
        assertTrue(RedisTls.why(plainPort).contains("does not speak TLS"), RedisTls.why(plainPort));

        // a Cluster client keeps each seed's failure as a suppressed one
        JedisClusterOperationException cluster = new JedisClusterOperationException("Could not initialize cluster slots cache.");
        cluster.addSuppressed(untrusted);
        RuntimeException told = RedisTls.explained(cluster);
        assertTrue(told.getMessage().contains("not trusted"), told.getMessage());
        assertSame(cluster, told.getCause(), "the original stays as the cause");
    }

    /** A failure that is not TLS's: a chain of these, in causes and suppressed failures. */
    static Gen<Throwable> notTls() {
        return of(new ConnectException("Connection refused"), new SocketTimeoutException("Read timed out"),
                new SocketException("Broken pipe"), new JedisConnectionException("Unexpected end of stream."),
                new IllegalStateException("certificate_required, but not from TLS"), new CertificateException("expired"));
    }

    /**
     * A failure TLS did not cause is handed on as it is (the same object): the explanation never
     * hides another failure. One that a certificate path caused, wherever it sits in the chain, is
     * told as "not trusted". Reference model: the chain's failures as a list.
     */
    @Test
    void onlyTlsFailuresAreRetold() {
        qt(300).forAll(lists(notTls(), 1, 6), bools(), SourceDSL.integers().all()).checkAssert(this::onlyTlsFailuresAreRetold);
    }

    private void onlyTlsFailuresAreRetold(List<Throwable> chain, boolean suppressed, int at) {
        RuntimeException top = new JedisConnectionException("top");
        Throwable tail = top;
        for (Throwable t : chain) {
            Throwable copy = copy(t);
            if (suppressed) {
                tail.addSuppressed(copy);
            } else {
                tail.initCause(copy);
            }
            tail = copy;
        }
        assertSame(top, RedisTls.explained(top), "not TLS: unchanged");

        RuntimeException withTls = new JedisConnectionException("top");
        tail = withTls;
        int tlsAt = Math.floorMod(at, chain.size());
        for (int i = 0; i < chain.size(); i++) {
            Throwable copy = i == tlsAt ? new SSLHandshakeException("PKIX").initCause(new CertPathBuilderException("no path"))
                    : copy(chain.get(i));
            if (suppressed) {
                tail.addSuppressed(copy);
            } else {
                tail.initCause(copy);
            }
            tail = i == tlsAt ? copy.getCause() : copy;
        }
        RuntimeException told = RedisTls.explained(withTls);
        assertTrue(told.getMessage().contains("not trusted"), told.getMessage());
    }

    /** A fresh failure like {@code t} (a Throwable's cause is set once). */
    private static Throwable copy(Throwable t) {
        if (t instanceof ConnectException) {
            return new ConnectException(t.getMessage());
        }
        if (t instanceof SocketTimeoutException) {
            return new SocketTimeoutException(t.getMessage());
        }
        if (t instanceof SocketException) {
            return new SocketException(t.getMessage());
        }
        if (t instanceof JedisConnectionException) {
            return new JedisConnectionException(t.getMessage());
        }
        if (t instanceof CertificateException) {
            return new CertificateException(t.getMessage());
        }
        return new IllegalStateException(t.getMessage());
    }
}
