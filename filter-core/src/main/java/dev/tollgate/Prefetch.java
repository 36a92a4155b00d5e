package dev.tollgate;

import java.time.Duration;

/**
 * A policy's token leasing ({@code tollgate.policy.<name>.prefetch}): a node takes up to
 * {@code tokens} tokens of one client's bucket from the shared store in one call and hands them
 * out to that client's requests itself, until they run out or {@code hold} has passed since it
 * asked; tokens left then are dropped (they stay taken: the store never sees them again).
 *
 * <p>Immutable and thread-safe.
 *
 * @param tokens how many tokens one call takes, {@value #MIN_TOKENS} to {@value #MAX_TOKENS}, at most the
 *               policy's smallest burst
 * @param hold   how long a node hands out the tokens of one call, from the moment it asked,
 *               {@link #MIN_HOLD} to {@link #MAX_HOLD}
 */
public record Prefetch(int tokens, Duration hold) {

    /** Fewer would save no call. */
    public static final int MIN_TOKENS = 2;
    /** The most tokens one call takes. */
    public static final int MAX_TOKENS = 10_000;
    public static final Duration MIN_HOLD = Duration.ofMillis(1);
    public static final Duration MAX_HOLD = Duration.ofSeconds(10);
    /** The hold when none is configured: short enough that a node's unused tokens are gone quickly. */
    public static final Duration DEFAULT_HOLD = Duration.ofMillis(200);

    public Prefetch {
        if (tokens < MIN_TOKENS || tokens > MAX_TOKENS) {
            throw new IllegalArgumentException("prefetch must be " + MIN_TOKENS + " to " + MAX_TOKENS + ", got " + tokens);
        }
        if (hold.compareTo(MIN_HOLD) < 0 || hold.compareTo(MAX_HOLD) > 0) {
            throw new IllegalArgumentException("a prefetch hold must be 1ms to 10s, got " + hold);
        }
    }

    /** The hold in nanoseconds. */
    public long holdNanos() {
        return hold.toNanos();
    }
}
