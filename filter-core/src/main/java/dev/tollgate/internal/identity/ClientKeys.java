package dev.tollgate.internal.identity;

import dev.tollgate.Algorithm;
import dev.tollgate.Policy;
import dev.tollgate.RequestView;
import dev.tollgate.internal.Messages;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How a request's client key is made, in one place. The adapter's request is wrapped once in a
 * {@link ClientRequest} (its address found through trusted proxies by {@code ClientAddresses});
 * each policy's resolver ({@link KeyResolvers}, or a custom one) reads it; when the resolver has
 * no key or fails, the peer address stands in ({@code ip=<address>}); the result is bounded and
 * made safe ({@link BucketKeys#client}); and the storage key is written readable or compact
 * ({@link #storageKey}).
 *
 * <p>Stateless; thread-safe.
 */
public final class ClientKeys {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    /** How storage keys are written: {@code tollgate.redis.key-prefix}, {@code key-format}, and whether Redis is a Cluster. */
    public record Format(String prefix, boolean compact, boolean cluster) {
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
        return format.compact() ? BucketKeys.compactKey(format.prefix(), bucket, client, format.cluster(), algorithm)
                : BucketKeys.key(format.prefix(), bucket, client, algorithm);
    }
}
