package dev.tollgate.jaxrs.client;

import dev.tollgate.Outbound;
import dev.tollgate.Policy;
import dev.tollgate.RateLimiter;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.client.ClientResponseContext;
import jakarta.ws.rs.client.ClientResponseFilter;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Limits the calls a JAX-RS client makes to one remote API with a Tollgate policy, so that every
 * node sharing the store (Redis) stays under the remote's quota together:
 *
 * <pre>{@code
 * Client github = ClientBuilder.newClient()
 *         .register(TollgateClientFilter.forPolicy(limiter, "github"));
 * }</pre>
 *
 * <ul>
 *   <li>Before a call is sent, it takes the call's token from the bucket of the policy and the
 *       remote (the policy's default limits and its {@code cost} for the call's method and path).
 *       When none is left it <b>waits</b>, sleeping (never spinning) until the store says one
 *       comes, and tries again, for at most the policy's {@code max-wait}; a call whose token
 *       would come later fails at once with {@link RemoteQuotaException}, and nothing is sent.
 *       The thread that waits is the one that runs the client's filters: for an asynchronous call
 *       one of the client's executor threads, held for the wait (size that executor for the calls
 *       that may wait, or set {@code max-wait=0s} and retry when the exception says).</li>
 *   <li>After each answer, it reads what the remote says about its own quota
 *       ({@link RemoteAnswers}: {@code Retry-After} on a 429 or 503, {@code RateLimit} fields)
 *       and pauses the bucket for every node until then, at most {@code max-pause}; a longer,
 *       negative or unreadable value is clamped to it, and logged once per filter.</li>
 * </ul>
 *
 * <p>While Redis fails, the policy's failure mode applies as for requests ({@code local}: this
 * node's own bucket and pauses; {@code closed}: calls wait, then fail; {@code open}: calls go).
 * Register one filter per remote (one per client). Thread-safe.
 */
public final class TollgateClientFilter implements ClientRequestFilter, ClientResponseFilter {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.client");

    private final String policy;
    private final String remote;
    private final Quota quota;
    private final Sleeper sleeper;
    private final LongSupplier nanoTime;
    private final LongSupplier wallMillis;
    private final AtomicBoolean clampLogged = new AtomicBoolean();
    private final LongAdder sent = new LongAdder();
    private final LongAdder waited = new LongAdder();
    private final LongAdder waitedNanos = new LongAdder();
    private final LongAdder notSent = new LongAdder();
    private final LongAdder refusedByRemote = new LongAdder();
    private final LongAdder pauses = new LongAdder();

    TollgateClientFilter(String policy, String remote, Quota quota, Sleeper sleeper, LongSupplier nanoTime,
                         LongSupplier wallMillis) {
        this.policy = policy;
        this.remote = remote;
        this.quota = quota;
        this.sleeper = sleeper;
        this.nanoTime = nanoTime;
        this.wallMillis = wallMillis;
    }

    /** Limits calls under {@code policy}, the remote named as the policy ({@code forPolicy(limiter, "github")}). */
    public static TollgateClientFilter forPolicy(RateLimiter limiter, String policy) {
        return forRemote(limiter, policy, policy);
    }

    /**
     * Limits calls to {@code remote} under {@code policy}: calls to different remotes under one
     * policy count in buckets of their own.
     *
     * @param remote the remote's name, e.g. {@code api.github.com}; any text, bounded and made
     *               safe for the store's key as a client key is
     * @throws dev.tollgate.config.ConfigException when the policy is not configured (and a reload
     *         that would remove it is refused from then on)
     * @throws IllegalArgumentException when the policy has no rate limits (concurrency alone)
     */
    public static TollgateClientFilter forRemote(RateLimiter limiter, String policy, String remote) {
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(policy, "policy");
        if (remote == null || remote.isEmpty()) {
            throw new IllegalArgumentException("a remote needs a name, got " + (remote == null ? "null" : "''"));
        }
        limiter.requirePolicy(policy, 0, "TollgateClientFilter for remote '" + remote + "'");
        Policy p = limiter.config().policy(policy).orElseThrow();
        if (p.limits().isEmpty()) {
            throw new IllegalArgumentException("policy '" + policy + "' has no rate limits (only concurrency); outbound"
                    + " calls need tollgate.policy." + policy + ".limits");
        }
        return new TollgateClientFilter(policy, remote, Quota.of(limiter, policy, remote), Sleeper.THREAD,
                System::nanoTime, System::currentTimeMillis);
    }

    /** Takes the call's token, waiting for it up to {@code max-wait}; else throws, sending nothing. */
    @Override
    public void filter(ClientRequestContext request) {
        Outbound limits = quota.outbound();
        URI uri = request.getUri();
        String path = uri == null ? null : uri.getRawPath();
        long start = nanoTime.getAsLong();
        long budget = limits.maxWait().toNanos();
        boolean slept = false;
        while (true) {
            long waitMicros = quota.take(request.getMethod(), path);
            long now = nanoTime.getAsLong();
            if (waitMicros <= 0) {
                sent.increment();
                if (slept) {
                    waited.increment();
                    waitedNanos.add(now - start);
                }
                return;
            }
            long waitNanos = Math.multiplyHigh(waitMicros, 1000) != 0 ? Long.MAX_VALUE : waitMicros * 1000;
            if (waitNanos > budget - (now - start)) {
                notSent.increment();
                throw new RemoteQuotaException(policy, remote, Duration.ofNanos(waitNanos), Duration.ofNanos(now - start));
            }
            slept = true;
            try {
                sleeper.sleep(Duration.ofNanos(waitNanos));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                notSent.increment();
                throw new RemoteQuotaException(policy, remote, Duration.ofNanos(nanoTime.getAsLong() - start), e);
            }
        }
    }

    /** Pauses every node when the remote says its quota is spent. Never throws. */
    @Override
    public void filter(ClientRequestContext request, ClientResponseContext response) {
        try {
            if (response.getStatus() == 429) {
                refusedByRemote.increment();
            }
            Outbound limits = quota.outbound();
            RemoteAnswers.Reading r = RemoteAnswers.read(response.getStatus(), response::getHeaderString,
                    wallMillis.getAsLong(), limits.maxPause());
            if (r == null) {
                return;
            }
            if (r.absurd() != null && clampLogged.compareAndSet(false, true)) {
                LOG.warning(() -> "remote '" + remote + "' (policy '" + policy + "') asked for a pause of '"
                        + printable(r.absurd()) + "'; paused for max-pause " + limits.maxPause()
                        + " instead (tollgate.policy." + policy + ".max-pause); logged once per remote");
            }
            if (!r.pause().isZero()) {
                pauses.increment();
                quota.pause(r.pause());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not read the answer of remote '" + remote + "' for a pause; none set", e);
        }
    }

    private static String printable(String s) {
        String cut = s.length() > 200 ? s.substring(0, 200) + "..." : s;
        return cut.replaceAll("[^\\x20-\\x7E]", "?");
    }

    /**
     * What this filter did so far.
     *
     * @param sent             calls that got their token and were sent
     * @param waited           of those, calls that waited for it
     * @param waitedTime       the time those calls waited, together
     * @param notSent          calls that failed with {@link RemoteQuotaException}
     * @param refusedByRemote  answers with status 429
     * @param pauses           pauses set from the remote's answers
     */
    public record Counts(long sent, long waited, Duration waitedTime, long notSent, long refusedByRemote, long pauses) {
    }

    /** What this filter did so far; counters only grow. */
    public Counts counts() {
        return new Counts(sent.sum(), waited.sum(), Duration.ofNanos(waitedNanos.sum()), notSent.sum(),
                refusedByRemote.sum(), pauses.sum());
    }

    @Override
    public String toString() {
        return "TollgateClientFilter[policy=" + policy + ", remote=" + remote + "]";
    }
}
