package dev.tollgate.internal.engine;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.identity.ClientKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;

/**
 * One client's buckets under one policy, as an operator asks about them (JMX, the command-line
 * tool): what they hold, and a reset that empties them. The keys are the ones requests use,
 * made by {@link ClientKeys} from the same configuration: every plan's bucket of the policy (each
 * plan with limits of its own counts apart), its concurrency leases and its pause gate.
 *
 * <p>What a bucket holds is read by the bucket script itself, with a request that costs nothing
 * (it takes nothing, and what it answers is what the next request would meet: tokens left, time
 * to full, and for a calendar quota the time to the window's end), so no second reader of the
 * stored state exists to drift from {@code bucket.lua}. Leases and expiries come from
 * {@code client.lua}.
 *
 * <p>The client is named as the key resolver makes it (e.g. {@code ip=198.51.100.7},
 * {@code header.x-api-key=...}): an operator types it, so it is shown back to them, but the log
 * line of a reset names it by fingerprint only ({@link ClientKeys#shown}), whatever
 * {@code tollgate.log.client-keys} says. Stateless.
 */
public final class ClientBuckets {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private ClientBuckets() {
    }

    /** One rate bucket: the policy's, or a plan's ({@code policy@plan}). */
    private record Rate(String name, String key, List<Limit> limits, Algorithm algorithm) {
    }

    /** The keys of a client under a policy, in the order {@link #inspect} shows them. */
    static List<String> keys(TollgateConfig c, Policy p, String client) {
        List<String> keys = new ArrayList<>();
        for (Rate r : rates(c, p, client)) {
            keys.add(r.key());
        }
        if (p.concurrency() != null) {
            keys.add(ClientKeys.leaseKey(RemotePlans.format(c), p, client));
        }
        keys.add(ClientKeys.pauseKey(RemotePlans.format(c), p, client));
        return keys;
    }

    private static List<Rate> rates(TollgateConfig c, Policy p, String client) {
        List<Rate> rates = new ArrayList<>();
        for (Map.Entry<String, List<Limit>> e : p.allLimits().entrySet()) {
            String plan = e.getKey().isEmpty() ? null : e.getKey();
            if (!e.getValue().isEmpty()) {
                rates.add(new Rate(BucketKeys.bucketName(p, plan), ClientKeys.storageKey(RemotePlans.format(c), p, plan, client),
                        e.getValue(), p.algorithm()));
            }
        }
        return rates;
    }

    private static Policy policy(TollgateConfig c, String name) {
        return c.policy(name).orElseThrow(() -> new IllegalArgumentException(Messages.unknownPolicy("inspect and reset",
                name, c.policies().stream().map(Policy::name).toList())));
    }

    /**
     * What the client's buckets under the policy hold, one line each, for an operator.
     *
     * @param rawClient the client key as the policy's resolver makes it, e.g. {@code ip=198.51.100.7}
     * @throws IllegalArgumentException for a policy the configuration does not have
     * @throws UnsupportedOperationException for the in-memory store
     */
    public static String inspect(TollgateConfig c, BucketStore store, String policyName, String rawClient) {
        Policy p = policy(c, policyName);
        String client = BucketKeys.client(rawClient);
        List<String> keys = keys(c, p, client);
        long[] described = store.describe(keys);
        List<Rate> rates = rates(c, p, client);
        StringBuilder out = new StringBuilder();
        out.append("policy ").append(p.name()).append(", client ").append(rawClient).append('\n');
        for (int i = 0; i < rates.size(); i++) {
            Rate r = rates.get(i);
            // costs nothing, takes nothing: the bucket script's own reading of the stored state
            List<BucketReply> reply = store.acquire(List.of(BucketRequest.take(r.key(), r.limits(), 0, false, r.algorithm())));
            out.append("  ").append(r.name()).append(" (").append(kind(r.algorithm())).append(", key ").append(r.key())
                    .append(described[3 * i] == 0 ? ", not stored: full" : "").append(")\n");
            for (LimitState s : reply.get(0).limits()) {
                out.append("    ").append(s.limit().text()).append(": ");
                if (r.algorithm() == Algorithm.CALENDAR) {
                    out.append(s.remaining()).append(" of ").append(s.limit().capacity()).append(" left in this window, which ends in ")
                            .append(seconds(s.resetMicros()));
                } else {
                    out.append(s.remaining()).append(" of ").append(s.limit().capacity()).append(" tokens left, full in ")
                            .append(seconds(s.resetMicros()));
                }
                out.append('\n');
            }
        }
        int next = rates.size();
        if (p.concurrency() != null) {
            out.append("  leases in flight: ").append(described[3 * next + 1]).append(" of ")
                    .append(p.concurrency().slots()).append('\n');
            next++;
        }
        long pauseTtl = described[3 * next + 2];
        out.append("  paused: ").append(described[3 * next] == 0 ? "no" : "yes, for " + seconds(pauseTtl)).append('\n');
        return out.toString();
    }

    /**
     * Deletes the client's keys under the policy (its buckets are full again, its quotas unused,
     * its leases and pause gone) and logs it ({@code TOLLGATE-040}), naming the client by
     * fingerprint and who asked.
     *
     * @param who the operator: a JMX principal, {@code jmx}, or the OS user of the command-line tool
     * @return what was done, for the operator
     */
    public static String reset(TollgateConfig c, BucketStore store, String policyName, String rawClient, String who) {
        Policy p = policy(c, policyName);
        String client = BucketKeys.client(rawClient);
        List<String> keys = keys(c, p, client);
        long deleted = store.delete(keys);
        LOG.info(Messages.clientReset(p.name(), ClientKeys.shown(client, false), deleted, keys.size(), who));
        return "reset: policy " + p.name() + ", client " + rawClient + ": " + deleted + " of " + keys.size()
                + " keys deleted (the others held nothing)";
    }

    private static String kind(Algorithm a) {
        return switch (a) {
            case TOKEN_BUCKET -> "token bucket";
            case SLIDING_LOG -> "sliding log";
            case CALENDAR -> "calendar quota";
        };
    }

    private static String seconds(long micros) {
        return String.format(Locale.ROOT, "%.3f s", micros / 1e6);
    }
}
