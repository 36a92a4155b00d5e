package dev.tollgate.internal.engine;

import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.config.text.KeyResolvers;
import dev.tollgate.internal.bucket.BucketRequest;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Plans kept for the next request from the same peer address, where a plan depends on nothing
 * else: under a configuration whose every client key is the peer's address ({@code key=ip}, no
 * trusted proxies, no plans, no allow-list, no concurrency limit; see
 * {@link #plansByAddress(TollgateConfig)}), the storage keys, limits and deny-cache question of
 * a request are a function of its peer address, its policies and their costs. A hit saves
 * parsing and formatting the address and building three key strings and the plan's objects.
 * The same holds where the keys read one request header besides the address
 * ({@code key=header:X-Client-Id}, alone or with {@code ip}; see {@link #keyHeader}): a plan is
 * then kept for its peer address and that header's value, a value up to {@value #MAX_HEADER}
 * characters (a longer one makes its plan every time).
 *
 * <p>Bounded: {@value #SLOTS} slots, each holding the newest plan of the addresses that hash to
 * it (about 350 bytes each, 450 with the deny cache's question: at most 6 to 7.5 MB; with a key
 * header, its value and longer keys, at most about 1,000 bytes, 16 MB). A slot
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

    /**
     * The longest value of the key header that is kept ({@link #keyHeader}): a longer one (a hostile
     * one, or a token) makes its plan every time, so no slot holds more than this of a request.
     */
    static final int MAX_HEADER = 128;

    /**
     * @param hash   the hash of peer and header: a slot taken by another client is told without reading its text
     * @param header the key header's value, {@code null} when absent or when the plan reads the address alone
     */
    private record Entry(TollgateConfig config, int hash, String peer, String header, RequestPlan plan) {
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
        if (!c.identity().clientAddresses().trusted().isEmpty() || !c.identity().plans().isEmpty() || !c.identity().allowList().isEmpty()) {
            return false;
        }
        for (Policy p : c.policies()) {
            if (!KeyResolvers.readsAddressOnly(p.key()) || p.concurrency() != null
                    || p.limitsFor(null).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The header whose value, with the peer address, makes every plan under {@code c}, or
     * {@code null}: as {@link #plansByAddress}, but every policy's key is the address or the
     * built-in {@code header:<name>} resolver of one header name ({@code header:X-Client-Id} alone,
     * or with {@code ip} as an alternative or a part), at least one policy reading it. The key then
     * is a function of that header's first value (or its absence) and the address (the stand-in
     * {@code ip=<address>} when the header is absent or empty), and so is the whole plan.
     */
    static String keyHeader(TollgateConfig c) {
        if (!c.identity().clientAddresses().trusted().isEmpty() || !c.identity().plans().isEmpty() || !c.identity().allowList().isEmpty()) {
            return null;
        }
        String header = null;
        for (Policy p : c.policies()) {
            if (p.concurrency() != null || p.limitsFor(null).isEmpty()) {
                return null;
            }
            if (KeyResolvers.readsAddressOnly(p.key())) {
                continue;
            }
            String h = KeyResolvers.readsAddressAndHeader(p.key());
            if (h == null || (header != null && !header.equals(h))) {
                return null;
            }
            header = h;
        }
        return header;
    }

    /**
     * The plan made earlier for a request from {@code peer} under {@code c}, for exactly these
     * policies at the costs this request has, asked with the deny cache or not as now; else
     * {@code null}.
     *
     * @param costOverride tokens per request, or 0 for each policy's own cost
     */
    RequestPlan get(TollgateConfig c, String peer, String header, List<Policy> policies, long costOverride,
                    boolean useDenyCache, String method, String path) {
        int hash = hash(peer, header);
        Entry e = slots[slot(hash)];
        if (e == null || e.hash() != hash || e.config() != c || !e.peer().equals(peer)
                || !Objects.equals(e.header(), header)) {
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
            if (b.policy() != p || !(b.request() instanceof BucketRequest.Take t)
                    || t.cost() != (costOverride > 0 ? costOverride : p.cost().of(method, path))) {
                return null;
            }
        }
        return plan;
    }

    /**
     * Keeps a plan made under a configuration where {@link #plansByAddress} holds, for {@code peer}
     * ({@code header} {@code null}), or where {@link #keyHeader} names a header, for {@code peer}
     * and that header's value ({@code null} when absent), at most {@value #MAX_HEADER} characters.
     */
    void put(TollgateConfig c, String peer, String header, RequestPlan plan) {
        int hash = hash(peer, header);
        slots[slot(hash)] = new Entry(c, hash, peer, header, plan);
    }

    /** Peer and header value together: clients behind one address (a proxy, loopback) spread over slots by their header. */
    private static int hash(String peer, String header) {
        return header == null ? peer.hashCode() : 31 * peer.hashCode() + header.hashCode();
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
