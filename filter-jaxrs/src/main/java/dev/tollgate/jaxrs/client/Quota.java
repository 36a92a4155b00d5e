package dev.tollgate.jaxrs.client;

import dev.tollgate.Decision;
import dev.tollgate.Outbound;
import dev.tollgate.Policy;
import dev.tollgate.RateLimiter;
import java.time.Duration;

/**
 * The shared bucket of one remote under one policy, as the filter sees it: take a token or learn
 * the wait, pause it, read the policy's outbound settings. {@link #of} is the limiter's; tests
 * give a model on their own clock. Implementations must be thread-safe.
 */
interface Quota {

    /** Takes a token for a call: 0 when taken, else the µs until one could be (at least 1). */
    long take(String method, String path);

    /** Pauses every node's calls (clamped to {@code max-pause}); the pause in force after it. */
    Duration pause(Duration pause);

    /** The policy's {@code max-wait} and {@code max-pause} now (a reload may change them). */
    Outbound outbound();

    static Quota of(RateLimiter limiter, String policy, String remote) {
        return new Quota() {
            @Override
            public long take(String method, String path) {
                Decision d = limiter.checkRemote(policy, remote, method, path);
                return d.allowed() ? 0 : Math.max(1, d.retryAfterMicros());
            }

            @Override
            public Duration pause(Duration pause) {
                return limiter.pauseRemote(policy, remote, pause);
            }

            @Override
            public Outbound outbound() {
                return limiter.config().policy(policy).map(Policy::outbound).orElse(Outbound.DEFAULT);
            }
        };
    }
}
