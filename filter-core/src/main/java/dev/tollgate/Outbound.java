package dev.tollgate;

import java.time.Duration;
import java.util.Objects;

/**
 * How a policy limits outbound calls to a remote API (the JAX-RS client filter): how long a call
 * may wait for a token, and the longest pause a remote's answer can impose on every node.
 *
 * <p>Immutable and thread-safe.
 *
 * @param maxWait  the longest a call waits for its token; a call that would wait longer fails at
 *                 once, without calling the remote ({@code 0}: never waits)
 * @param maxPause the longest pause a remote's {@code Retry-After} or {@code RateLimit} field sets;
 *                 a longer, negative or unreadable one is clamped to it
 */
public record Outbound(Duration maxWait, Duration maxPause) {

    /**
     * What {@code tollgate.policy.<name>.max-wait} and {@code max-pause} default to (written here,
     * not read from {@code Settings}, which names {@link Policy}: a test holds the two equal).
     */
    public static final Outbound DEFAULT = new Outbound(Duration.ofSeconds(5), Duration.ofMinutes(5));

    public Outbound {
        Objects.requireNonNull(maxWait, "maxWait");
        Objects.requireNonNull(maxPause, "maxPause");
        if (maxWait.isNegative() || maxPause.isNegative()) {
            throw new IllegalArgumentException("maxWait and maxPause are at least 0, got " + maxWait + ", " + maxPause);
        }
    }
}
