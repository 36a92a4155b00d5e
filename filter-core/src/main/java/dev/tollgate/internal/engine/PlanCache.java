package dev.tollgate.internal.engine;

import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import java.util.Arrays;
import java.util.List;

/**
 * Plans kept for the next request from the same peer address, where a plan depends on nothing
 * else: under a configuration whose every client key is the peer's address ({@code key=ip}, no
 * trusted proxies, no plans, no allow-list, no concurrency limit; see
 * {@link #plansByAddress(TollgateConfig)}), the storage keys, limits and deny-cache question of
 * a request are a function of its peer address, its policies and their costs. A hit saves
 * parsing and formatting the address and building three key strings and the plan's objects.
 *
 * <p>Bounded: {@value #SLOTS} slots, each holding the newest plan of the addresses that hash to
 * it (about 350 bytes each, 450 with the deny cache's question: at most 6 to 7.5 MB). A slot
 * holds one address, so over N clients picked uniformly at random a share of about
 * {@code S(1 - e^(-N/S))/N} of requests finds its plan (S slots): no replacement rule does better
 * than {@code S/N} there. 16,384 slots keep about 31 % of 50,000 such clients' plans; 65,536
 * would keep 70 % and save about 160 bytes of garbage per decision there, for up to 23 to 30 MB
 * of heap held for good: not worth it (docs/benchmarks.md, "How cost grows"). A plan
 * is immutable and holds nothing from the request it was made for but what every request of
 * its address would compute again.
 *
 * <p>Thread-safe: slots are written and read without a lock on purpose. An entry is immutable
 * (final fields all the way down), so a thread that sees it sees it whole; a write another
 * thread does not see yet is a miss for that thread, nothing worse.
 */
final class PlanCache {

    /** A power of two. 16,384 plans of 350 to 450 bytes (keys, plan, the peer's text): at most 6 to 7.5 MB. */
    static final int SLOTS = 1 << 14;

    /** @param hash the peer's hash: a slot taken by another address is told without reading its text */
    private record Entry(TollgateConfig config, int hash, String peer, RequestPlan plan) {
    }

    private final Entry[] slots = new Entry[SLOTS];

    /**
     * Whether every plan under {@code c} is a function of the peer address, the policies and their
     * costs alone: every policy's key is the address ({@code ip}), has limits and no concurrency
     * limit (a lease is unique per request), and neither trusted proxies (the address would come
     * from headers), plans (chosen by role or header) nor an allow-list (which may name a
     * principal) are configured.
     */
    static boolean plansByAddress(TollgateConfig c) {
        if (!c.clientAddresses().trusted().isEmpty() || !c.plans().isEmpty() || !c.allowList().isEmpty()) {
            return false;
        }
        for (Policy p : c.policies()) {
            if (!dev.tollgate.internal.identity.KeyResolvers.readsAddressOnly(p.key()) || p.concurrency() != null
                    || p.limitsFor(null).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The plan made earlier for a request from {@code peer} under {@code c}, for exactly these
     * policies at the costs this request has, asked with the deny cache or not as now; else
     * {@code null}.
     *
     * @param costOverride tokens per request, or 0 for each policy's own cost
     */
    RequestPlan get(TollgateConfig c, String peer, List<Policy> policies, long costOverride, boolean useDenyCache,
                    String method, String path) {
        int hash = peer.hashCode();
        Entry e = slots[slot(hash)];
        if (e == null || e.hash() != hash || e.config() != c || !e.peer().equals(peer)) {
            return null;
        }
        RequestPlan plan = e.plan();
        List<RequestPlan.Bucket> buckets = plan.buckets();
        if (buckets.size() != policies.size() || (plan.denyCacheKey() != null) != useDenyCache) {
            return null;
        }
        for (int i = 0; i < buckets.size(); i++) { // one bucket per policy, in order (plansByAddress)
            Policy p = policies.get(i);
            RequestPlan.Bucket b = buckets.get(i);
            if (b.policy() != p || b.request().cost() != (costOverride > 0 ? costOverride : p.cost().of(method, path))) {
                return null;
            }
        }
        return plan;
    }

    /** Keeps a plan made under a configuration where {@link #plansByAddress} holds, for {@code peer}. */
    void put(TollgateConfig c, String peer, RequestPlan plan) {
        int hash = peer.hashCode();
        slots[slot(hash)] = new Entry(c, hash, peer, plan);
    }

    /** Forgets every plan (the configuration changed: none would be found again). */
    void clear() {
        Arrays.fill(slots, null);
    }

    /** The slot of a peer's hash; package-private so that tests can pick addresses that share one. */
    static int slot(int h) {
        return (h ^ (h >>> 16)) & (SLOTS - 1); // the high bits too: addresses differ mostly at their end
    }
}
