package dev.tollgate.internal.identity;

import dev.tollgate.Algorithm;
import dev.tollgate.Policy;
import dev.tollgate.RequestView;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a request's client key is made, in one place. The adapter's request is wrapped once in a
 * {@link ClientRequest} (its address found through trusted proxies by {@code ClientAddresses});
 * each policy's resolver ({@link dev.tollgate.config.text.KeyResolvers}, or a custom one) reads it; when the resolver has
 * no key or fails, the peer address stands in ({@code ip=<address>}); the result is bounded and
 * made safe ({@link BucketKeys#client}); and the storage key is written readable or compact
 * ({@link #storageKey}).
 *
 * <p>Stateless; thread-safe.
 */
public final class ClientKeys {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    /**
     * How storage keys are written: {@code tollgate.redis.key-prefix}, the namespace's key part
     * ({@link BucketKeys#namespace}; {@code null}: none, the layout before namespaces),
     * {@code key-format}, and whether Redis is a Cluster.
     */
    public record Format(String prefix, String namespace, boolean compact, boolean cluster) {

        /** Without a namespace, the layout before namespaces (tests and tools that write keys themselves). */
        public Format(String prefix, boolean compact, boolean cluster) {
            this(prefix, null, compact, cluster);
        }

        /** The format of a configuration's keys; {@code cluster}: whether its Redis is a Cluster. */
        public static Format of(TollgateConfig c, boolean cluster) {
            return new Format(c.store().keyPrefix(), BucketKeys.namespace(c.namespace().value()), c.store().compactKeys(), cluster);
        }
    }

    private ClientKeys() {
    }

    /**
     * The client part of a policy's key for a request: the key the integration chose
     * ({@link RequestView#clientKey()}), else resolved, else the peer address; bounded and safe.
     */
    public static String client(Policy policy, RequestView request) {
        String key = request.clientKey();
        if (key != null) {
            return BucketKeys.client(key);
        }
        try {
            key = policy.key().resolve(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, Messages.internalError("the key resolver of policy '" + policy.name()
                    + "' failed; the peer address is used"), e);
            key = null;
        }
        if (key == null) {
            key = "ip=" + request.clientAddress();
        }
        return BucketKeys.client(key);
    }

    /** The key of {@link #shown}'s fingerprints: new at each start, so a fingerprint cannot be looked up elsewhere. */
    private static final SecretKeySpec SHOWN_KEY;

    static {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        SHOWN_KEY = new SecretKeySpec(key, "HmacSHA256");
    }

    /**
     * How a log line, a message or a {@code toString} names a client: its key's kind (what comes
     * before the first {@code =}, such as {@code ip} or {@code header.x-api-key}) and a fingerprint,
     * the first 48 bits of an HMAC-SHA256 of the whole key under a key drawn at start-up; or the
     * whole key when {@code clear} ({@code tollgate.log.client-keys=clear}, for debugging). An API
     * key, an address or an e-mail address of a {@code @RateLimitKey} is never shown otherwise: one
     * client's lines can be told apart and followed on one node, not read, and not looked up by
     * hashing a guessed address (the key is secret and new at each start).
     */
    public static String shown(String client, boolean clear) {
        if (clear || client == null) {
            return client;
        }
        int eq = client.indexOf('=');
        boolean kind = eq > 0 && eq <= 40;
        for (int i = 0; kind && i < eq; i++) {
            char c = client.charAt(i);
            kind = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == ':';
        }
        byte[] mac;
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(SHOWN_KEY);
            mac = hmac.doFinal(client.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
        StringBuilder shown = new StringBuilder(kind ? eq + 13 : 19).append(kind ? client.substring(0, eq) : "client").append('#');
        for (int i = 0; i < 6; i++) {
            shown.append(Character.forDigit((mac[i] >> 4) & 15, 16)).append(Character.forDigit(mac[i] & 15, 16));
        }
        return shown.toString();
    }

    /** The storage key of a client's bucket under a policy and plan ({@link BucketKeys#bucketName}). */
    public static String storageKey(Format format, Policy policy, String plan, String client) {
        return key(format, BucketKeys.bucketName(policy, plan), client, policy.algorithm());
    }

    /** What a concurrency lease key adds to the policy's token-bucket key; no bucket or log key ends with it. */
    static final String LEASE_SUFFIX = ":c";

    /**
     * The key of a client's concurrency leases under a policy: the policy's token-bucket key (never
     * a plan's: slots are per policy) and {@value #LEASE_SUFFIX}.
     */
    public static String leaseKey(Format format, Policy policy, String client) {
        return key(format, policy.name(), client, Algorithm.TOKEN_BUCKET) + LEASE_SUFFIX;
    }

    /** What a pause gate's key adds to the policy's token-bucket key; no other key ends with it. */
    static final String PAUSE_SUFFIX = ":p";

    /**
     * The key of the pause gate of a client under a policy ({@code BucketStore.pause}): the
     * policy's token-bucket key and {@value #PAUSE_SUFFIX}, so it shares the bucket's Cluster slot.
     */
    public static String pauseKey(Format format, Policy policy, String client) {
        return key(format, policy.name(), client, Algorithm.TOKEN_BUCKET) + PAUSE_SUFFIX;
    }

    private static String key(Format format, String bucket, String client, Algorithm algorithm) {
        return format.compact()
                ? BucketKeys.compactKey(format.prefix(), format.namespace(), bucket, client, format.cluster(), algorithm)
                : BucketKeys.key(format.prefix(), format.namespace(), bucket, client, algorithm);
    }
}
