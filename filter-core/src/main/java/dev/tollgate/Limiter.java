package dev.tollgate;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.engine.PolicyRequirement;
import dev.tollgate.internal.identity.KeyedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Tokens of a policy for a client named by code, for work that is no HTTP request: a batch job,
 * a message listener, a scheduled task. {@code limiter.acquire("exports", "tenant=acme", 3)}
 * takes 3 tokens of policy {@code exports} from the bucket of client {@code tenant=acme}, or
 * says how long until it could; {@link #acquire(String, String, long, Duration)} waits for them.
 * Made by {@link Tollgate#limiter}.
 *
 * <p>The buckets are the filters': a policy's bucket for a client key is the one a filter or the
 * CDI interceptor uses when its key resolver finds that key ({@code ip=192.0.2.1},
 * {@code header.x-tenant=acme}, {@code principal=ada}, or a custom resolver's or
 * {@code @RateLimitKey}'s key as it is), on the same store, with the client's default plan. The
 * store's failures are handled by the policy's failure mode as for a request: {@code local}
 * decides with this node's memory, {@code open} allows, {@code closed} refuses
 * ({@link Acquisition#unavailable()}). A {@code concurrency} limit is held as for a request:
 * an allowed acquisition holds a slot until {@link Acquisition#release()}.
 *
 * <p>What code passes wrongly is refused with an {@link IllegalArgumentException} before any store
 * is asked: a policy that is not configured ({@code TOLLGATE-003}), a client key that is
 * {@code null}, empty or longer than {@value #MAX_CLIENT_KEY} characters, a cost below 1 or beyond
 * a burst of the policy ({@code TOLLGATE-001}), a negative wait. No message names the client key.
 *
 * <p>Thread-safe.
 */
public final class Limiter implements AutoCloseable {

    /** The longest client key accepted: an HTTP header's usual bound; keys beyond 120 characters are stored hashed. */
    public static final int MAX_CLIENT_KEY = 8192;

    /**
     * How often a waiting acquire asks again while only a {@code concurrency} limit refuses it: a slot
     * can be given back at any moment, before the oldest lease expires.
     */
    static final long SLOT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** How a waiting acquire reads the time and waits; tests pass one that moves their clock. */
    interface Waits {
        long nanoTime();

        void sleep(long nanos) throws InterruptedException;

        Waits SYSTEM = new Waits() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void sleep(long nanos) throws InterruptedException {
                TimeUnit.NANOSECONDS.sleep(nanos);
            }
        };
    }

    private final RateLimiter engine;
    private final boolean owned;
    private final Waits waits;

    Limiter(RateLimiter engine, boolean owned, Waits waits) {
        this.engine = engine;
        this.owned = owned;
        this.waits = waits;
    }

    /**
     * Takes the policy's own {@code cost} (that of its default, what a request matching no
     * {@code cost} rule pays) for the client, now, or refuses without waiting.
     *
     * @throws IllegalArgumentException for an unknown policy or a bad client key (see the class)
     */
    public Acquisition acquire(String policy, String client) {
        return decide(policy, client, 0);
    }

    /**
     * Takes {@code cost} tokens of the policy for the client, now, or refuses without waiting: the
     * refusal's {@link Acquisition#retryAfter()} says how long until it could pass.
     *
     * @throws IllegalArgumentException for an unknown policy, a bad client key, a cost below 1 or
     *         one that a limit of the policy (of any plan) could never admit
     */
    public Acquisition acquire(String policy, String client, long cost) {
        requireCost(cost);
        return decide(policy, client, cost);
    }

    /**
     * Takes {@code cost} tokens of the policy for the client, waiting for them at most
     * {@code maxWait}. It waits only when it can succeed: it returns the refusal at once when the
     * refusal's {@link Acquisition#retryAfter()} is beyond what is left of {@code maxWait}, and
     * otherwise sleeps that long and asks again. While only a {@code concurrency} limit refuses,
     * it asks again every 20 ms (a slot may be given back at any moment) until {@code maxWait} is spent.
     * A refusal under failure mode {@code closed} is waited out like any other (one second).
     *
     * @param maxWait the longest wait; {@link Duration#ZERO} asks once
     * @return the first allowed acquisition, or the last refusal
     * @throws InterruptedException     when the thread is interrupted while it waits (no token is held then)
     * @throws IllegalArgumentException as {@link #acquire(String, String, long)}, or for a negative or
     *                                  {@code null} {@code maxWait}
     */
    public Acquisition acquire(String policy, String client, long cost, Duration maxWait) throws InterruptedException {
        requireCost(cost);
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must be zero or positive, got " + maxWait);
        }
        long start = waits.nanoTime();
        long budget = saturatedNanos(maxWait);
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for tokens of policy '" + policy + "'");
            }
            Acquisition a = decide(policy, client, cost);
            if (a.allowed()) {
                return a;
            }
            long left = budget - (waits.nanoTime() - start);
            long wait = waitNanos(a, left);
            if (wait < 0) {
                return a;
            }
            waits.sleep(wait);
        }
    }

    /**
     * How long to wait before asking again after refusal {@code a}, with {@code left} ns of the
     * wait left; negative when waiting cannot help (the refusal lasts longer than what is left).
     */
    static long waitNanos(Acquisition a, long left) {
        if (left <= 0) {
            return -1;
        }
        long rate = 0;
        long slots = -1;
        PolicyResult r = a.result();
        for (LimitState s : a.limits()) {
            if (s.admits()) {
                continue;
            }
            long nanos = saturatedNanos(s.retryAfterMicros());
            if (r != null && r.isConcurrency(s)) {
                slots = nanos;
            } else {
                rate = Math.max(rate, nanos);
            }
        }
        if (slots < 0 && rate == 0) {
            // no limit state says (the store failed under 'closed', or a refusal without states): the decision's own wait
            rate = Math.max(1, saturatedNanos(a.decision().retryAfterMicros()));
        }
        if (rate > left) {
            return -1; // no token could be had in time: do not sleep for nothing
        }
        if (slots < 0) {
            return rate;
        }
        // a slot may come back before its lease expires: ask again soon, and at the end of the wait
        return Math.max(rate, Math.min(Math.max(1, slots), Math.min(SLOT_POLL_NANOS, left)));
    }

    private Acquisition decide(String policy, String client, long cost) {
        if (policy == null) {
            throw new IllegalArgumentException("policy must be the name of a configured policy, got null");
        }
        requireClient(client);
        TollgateConfig c = engine.config();
        Policy p = c.policy(policy).orElse(null);
        if (p == null) {
            throw new IllegalArgumentException(Messages.unknownPolicy("Limiter.acquire", policy,
                    c.policies().stream().map(Policy::name).toList()));
        }
        List<Policy> policies = List.of(p);
        PolicyRequirement.requireFits(policies, cost, "Limiter.acquire(policy, client, cost)");
        return Acquisition.of(engine.check(new KeyedRequest(null, client), policies, cost), policy);
    }

    private static void requireCost(long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1 token, got " + cost
                    + "; acquire(policy, client) takes the policy's own cost");
        }
    }

    private static void requireClient(String client) {
        if (client == null || client.isEmpty()) {
            throw new IllegalArgumentException("client must be a key of at least one character, got "
                    + (client == null ? "null" : "an empty one"));
        }
        if (client.length() > MAX_CLIENT_KEY) {
            throw new IllegalArgumentException("client must be a key of at most " + MAX_CLIENT_KEY
                    + " characters, got one of " + client.length());
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static long saturatedNanos(long micros) {
        return micros > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : micros * 1000;
    }

    /** The engine this limiter decides with: its configuration, health and counters. */
    public RateLimiter engine() {
        return engine;
    }

    /** Closes the engine when {@link Tollgate#limiter(TollgateConfig)} made it; one given to it stays open. */
    @Override
    public void close() {
        if (owned) {
            engine.close();
        }
    }
}
