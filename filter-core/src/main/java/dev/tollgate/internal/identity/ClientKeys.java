package dev.tollgate.internal.identity;

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

    /** The client part of a policy's key for a request: resolved, else the peer address; bounded and safe. */
    public static String client(Policy policy, RequestView request) {
        String key;
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
        String bucket = BucketKeys.bucketName(policy, plan);
        return format.compact() ? BucketKeys.compactKey(format.prefix(), bucket, client, format.cluster(), policy.algorithm())
                : BucketKeys.key(format.prefix(), bucket, client, policy.algorithm());
    }
}
