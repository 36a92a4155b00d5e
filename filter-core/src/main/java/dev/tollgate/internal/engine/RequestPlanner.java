package dev.tollgate.internal.engine;

import dev.tollgate.Decision;
import dev.tollgate.Limit;
import dev.tollgate.Mode;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.RequestView;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.identity.ClientKeys;
import dev.tollgate.internal.identity.ClientRequest;
import dev.tollgate.internal.match.RequestPatterns;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Plans a request: the allow-list, the plan, each policy's client key and cost, the store
 * requests; and answers from the deny cache what the store refused for the same whole request.
 * Where a plan depends on the peer address alone, the plan made for an address is kept for its
 * next request ({@link PlanCache}).
 *
 * <p>Thread-safe.
 */
public final class RequestPlanner {

    private final DenyCache denyCache;
    private final PlanCache plans = new PlanCache();
    private volatile Shape shape;

    public RequestPlanner(int maxCached, LongSupplier nanoTime) {
        this.denyCache = new DenyCache(maxCached, nanoTime);
    }

    /** {@link #matching(TollgateConfig, Set, RequestView)} where code names no policy. */
    public static List<Policy> matching(TollgateConfig c, RequestView request) {
        return matching(c, Set.of(), request);
    }

    /**
     * The configured policies whose {@code match} covers the request, in configured order. A
     * policy that code names ({@code namedInCode}, {@link NamedPolicies}) and that has no
     * {@code match} of its own covers no request: it applies where code names it. When all
     * policies cover the request (one catch-all policy, the common case), the configuration's own list.
     */
    public static List<Policy> matching(TollgateConfig c, Set<String> namedInCode, RequestView request) {
        String method = safeMethod(request);
        String path = safePath(request);
        List<Policy> all = c.policies();
        List<Policy> some = null; // made at the first policy that does not match: no copy when all do
        RequestPatterns.Path cut = null; // the path cut once, at the first policy of patterns
        boolean named = !namedInCode.isEmpty();
        for (int i = 0; i < all.size(); i++) {
            Policy p = all.get(i);
            boolean matches;
            if (p.match() instanceof RequestPatterns.Backed b) {
                cut = cut != null ? cut : new RequestPatterns.Path(path);
                matches = b.patterns().matches(method, cut);
            } else {
                matches = !(named && !p.hasOwnMatch() && namedInCode.contains(p.name()))
                        && p.match().matches(method, path);
            }
            if (matches) {
                if (some != null) {
                    some.add(p);
                }
            } else if (some == null) {
                some = new ArrayList<>(all.size());
                for (int j = 0; j < i; j++) {
                    some.add(all.get(j));
                }
            }
        }
        return some == null ? all : some;
    }

    /** The current definitions of {@code policies} (given by an older configuration, perhaps); those gone are left out. */
    public static List<Policy> current(TollgateConfig c, Collection<Policy> policies) {
        List<Policy> current = new ArrayList<>(policies.size());
        for (Policy p : policies) {
            c.policy(p.name()).ifPresent(current::add);
        }
        return current;
    }

    // Two methods, not one taking a lambda: a capturing lambda per call is an allocation on every request.
    private static String safeMethod(RequestView request) {
        try {
            return request.method();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String safePath(RequestView request) {
        try {
            return request.path();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The plan of a request under the given policies, or {@code null} when the allow-list lets
     * it through.
     *
     * @param costOverride tokens per request, or 0 for each policy's own cost
     * @param useDenyCache whether to key the request for the deny cache
     */
    public RequestPlan plan(TollgateConfig c, RequestView original, List<Policy> policies, long costOverride,
                            boolean useDenyCache) {
        Shape shape = shape(c);
        // A request whose integration chose its own client key (the CDI interceptor's arguments) is
        // not a function of its peer address: it is never answered by a kept plan.
        String peer = (shape.plansByAddress() || shape.keyHeader() != null) && safeClientKey(original) == null
                ? safePeer(original) : null;
        String header = peer == null || shape.keyHeader() == null ? null : safeHeader(original, shape.keyHeader());
        if (peer == null || (header != null && header.length() > PlanCache.MAX_HEADER)) {
            return make(c, shape.format(), original, policies, costOverride, useDenyCache);
        }
        RequestPlan known = plans.get(c, peer, header, policies, costOverride, useDenyCache, safeMethod(original),
                safePath(original));
        if (known != null) {
            return known;
        }
        RequestPlan made = make(c, shape.format(), original, policies, costOverride, useDenyCache);
        if (made != null) {
            plans.put(c, peer, header, made);
        }
        return made;
    }

    private RequestPlan make(TollgateConfig c, ClientKeys.Format format, RequestView original, List<Policy> policies,
                             long costOverride, boolean useDenyCache) {
        ClientRequest request = new ClientRequest(original, c.identity().clientAddresses());
        if (!c.identity().allowList().isEmpty() && c.identity().allowList().allows(request, request.clientBytes())) {
            return null;
        }
        String plan = c.identity().plans().select(request, request.fromTrustedProxy());
        String method = request.method();
        String path = request.path();
        int n = policies.size();
        RequestPlan.Bucket[] buckets = new RequestPlan.Bucket[2 * n]; // a rate and a lease bucket per policy at most
        int count = 0;
        // The deny cache's question: every bucket of the request and its cost (see DenyCache).
        StringBuilder cacheKey = null;
        boolean leases = false;
        for (int i = 0; i < n; i++) { // by index: an iterator per request is garbage
            Policy p = policies.get(i);
            String client = ClientKeys.client(p, request);
            long cost = costOverride > 0 ? costOverride : p.cost().of(method, path);
            String key = ClientKeys.storageKey(format, p, plan, client);
            if (useDenyCache) {
                if (cacheKey == null) {
                    cacheKey = new StringBuilder(n * (key.length() + 24)); // sized once: no regrowing
                }
                cacheKey.append(key).append('\u0000').append(cost).append('\u0000').append(p.mode()).append('\u0000');
            }
            List<Limit> limits = p.limitsFor(plan);
            if (!limits.isEmpty()) {
                buckets[count++] = new RequestPlan.Bucket(p, client,
                        BucketRequest.take(key, limits, cost, p.mode() == Mode.ENFORCE, p.algorithm()));
            }
            if (p.concurrency() != null) {
                // A lease is given back at any moment: a remembered refusal could be stricter than the store.
                leases = true;
                buckets[count++] = new RequestPlan.Bucket(p, client, BucketRequest.lease(
                        ClientKeys.leaseKey(format, p, client),
                        p.concurrency().limit(), p.mode() == Mode.ENFORCE, LeaseIds.next()));
            }
        }
        return RequestPlan.of(plan, buckets, count, useDenyCache && !leases ? cacheKey.toString() : null);
    }

    /** What the planner derives from a configuration, once per configuration rather than per request. */
    private Shape shape(TollgateConfig c) {
        Shape s = shape;
        if (s == null || s.config() != c) {
            s = new Shape(c, ClientKeys.Format.of(c, c.store().guard().isCluster()),
                    PlanCache.plansByAddress(c), PlanCache.keyHeader(c));
            shape = s; // racing threads make equal values: either may stay
        }
        return s;
    }

    /**
     * @param format         how its storage keys are written
     * @param plansByAddress whether its plans may be kept by peer address ({@link PlanCache#plansByAddress})
     * @param keyHeader      the header by whose value, with the peer address, its plans may be kept
     *                       ({@link PlanCache#keyHeader}), or {@code null}
     */
    private record Shape(TollgateConfig config, ClientKeys.Format format, boolean plansByAddress, String keyHeader) {
    }

    private static String safeClientKey(RequestView request) {
        try {
            return request.clientKey();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** As {@link ClientRequest#header}: a view that throws has no such header. */
    private static String safeHeader(RequestView request, String name) {
        try {
            return request.header(name);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String safePeer(RequestView request) {
        try {
            return request.remoteAddress();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The refusal the deny cache holds for this whole request under this configuration, or
     * {@code null}: then ask the store and pass its answer to {@link #remember}. Where another
     * request is already asking the store again for this shape, waits for its answer at most
     * until that request's Redis time budget is spent.
     */
    public Decision cached(RequestPlan plan, TollgateConfig c) {
        if (plan.denyCacheKey() == null) {
            return null;
        }
        long budgetNanos = c.store().guard().timeout().toNanos();
        List<PolicyResult> known = denyCache.refused(plan.denyCacheKey(), c, budgetNanos);
        if (known == null) {
            return null;
        }
        long retry = 0;
        for (int i = 0; i < known.size(); i++) { // by index: every request the cache answers
            retry = Math.max(retry, known.get(i).retryAfterMicros());
        }
        return new Decision(Decision.Verdict.DENY, known, retry, Decision.Source.CACHE);
    }

    /** Remembers a refusal Redis gave this request, for {@link #cached}; any other answer lets waiters ask themselves. */
    public void remember(RequestPlan plan, Object generation, Decision d) {
        if (plan.denyCacheKey() == null) {
            return;
        }
        if (d.verdict() == Decision.Verdict.DENY && d.source() == Decision.Source.REDIS) {
            denyCache.remember(plan.denyCacheKey(), generation, d.denying());
        } else {
            denyCache.settled(plan.denyCacheKey());
        }
    }

    /**
     * Deciding this request failed unexpectedly (no answer to remember): requests waiting for that
     * answer ask the store themselves now, instead of waiting out the asker's time budget.
     */
    public void abandoned(RequestPlan plan) {
        if (plan.denyCacheKey() != null) {
            denyCache.settled(plan.denyCacheKey());
        }
    }

    /** Entries in the deny cache: remembered refusals and requests asking the store again (for tests). */
    public int denyCacheSize() {
        return denyCache.size();
    }

    /** Forgets every cached refusal (the configuration changed). */
    public void clear() {
        denyCache.clear();
        plans.clear();
    }
}
