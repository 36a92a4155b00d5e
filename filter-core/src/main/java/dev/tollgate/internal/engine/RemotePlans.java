package dev.tollgate.internal.engine;

import dev.tollgate.Limit;
import dev.tollgate.Mode;
import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.identity.ClientKeys;
import java.util.List;

/**
 * Plans an outbound call to a remote API: the remote is the client ({@code remote=<name>},
 * bounded and made safe like any client key), so every node that calls it under the same policy
 * counts in one bucket, guarded by one pause gate that the remote's own refusals set. Stateless;
 * thread-safe.
 */
public final class RemotePlans {

    private RemotePlans() {
    }

    /** The client part of a remote's keys. */
    public static String client(String remote) {
        return BucketKeys.client("remote=" + remote);
    }

    /**
     * The policy's rate bucket for the remote (its default limits; a remote has no plan), then
     * the remote's pause gate, decided in one atomic call; {@code null} when the policy has no
     * rate limits (concurrency alone does not limit outbound calls).
     *
     * @param cost tokens the call takes, at least 1
     */
    public static RequestPlan plan(TollgateConfig c, Policy p, String remote, long cost) {
        List<Limit> limits = p.limits();
        if (limits.isEmpty()) {
            return null;
        }
        String client = client(remote);
        ClientKeys.Format format = format(c);
        boolean enforcing = p.mode() == Mode.ENFORCE;
        return new RequestPlan(null, List.of(
                new RequestPlan.Bucket(p, client, BucketRequest.take(ClientKeys.storageKey(format, p, null, client), limits,
                        cost, enforcing, p.algorithm())),
                new RequestPlan.Bucket(p, client, BucketRequest.pauseGate(ClientKeys.pauseKey(format, p, client),
                        limits.get(0), enforcing))), null);
    }

    /** The key of the remote's pause gate under the policy. */
    public static String gateKey(TollgateConfig c, Policy p, String remote) {
        return ClientKeys.pauseKey(format(c), p, client(remote));
    }

    /** How the configuration writes storage keys; {@link ClientBuckets} reads them the same way. */
    static ClientKeys.Format format(TollgateConfig c) {
        return ClientKeys.Format.of(c, c.store().guard().isCluster());
    }
}
