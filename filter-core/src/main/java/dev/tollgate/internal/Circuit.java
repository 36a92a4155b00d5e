package dev.tollgate.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * The circuit around Redis. Closed, every decision calls Redis. After {@code threshold}
 * consecutive failures it opens: no call goes to Redis (a dead Redis then costs nothing per
 * request, not a timeout each) until {@code openFor} has passed; then one request probes Redis
 * while the others still take the failure mode. A probe that succeeds closes the circuit; one
 * that fails opens it again for twice as long, up to {@value #MAX_OPEN_SECONDS} s (or
 * {@code openFor}, if that is longer).
 *
 * <p>Each transition is logged once: {@code TOLLGATE-021} when it opens, {@code TOLLGATE-022}
 * when it closes. Thread-safe.
 */
public final class Circuit {

    /** Where the circuit stands. */
    public enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    static final long MAX_OPEN_SECONDS = 30;
    private static final Logger LOG = Logger.getLogger("dev.tollgate.redis");

    private final int threshold;
    private final long openForNanos;
    private final long maxOpenNanos;
    private final LongSupplier nanoTime;
    private final String target;

    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile State state = State.CLOSED;
    private volatile long openUntil;
    private volatile long currentOpenNanos;
    private volatile long openedAt;

    public Circuit(int threshold, Duration openFor, LongSupplier nanoTime, String target) {
        this.threshold = threshold;
        this.openForNanos = openFor.toNanos();
        this.maxOpenNanos = Math.max(openForNanos, Duration.ofSeconds(MAX_OPEN_SECONDS).toNanos());
        this.nanoTime = nanoTime;
        this.target = target;
        this.currentOpenNanos = openForNanos;
    }

    public State state() {
        return state;
    }

    /** Whether this request may call Redis; a {@code true} in the open state makes it the probe. */
    public boolean allowsCall() {
        if (state == State.CLOSED) {
            return true;
        }
        if (nanoTime.getAsLong() - openUntil < 0) {
            return false;
        }
        if (probing.compareAndSet(false, true)) {
            state = State.HALF_OPEN;
            return true;
        }
        return false;
    }

    /** Redis answered. */
    public void success() {
        failures.set(0);
        if (state != State.CLOSED) {
            synchronized (this) {
                if (state != State.CLOSED) {
                    long downMillis = (nanoTime.getAsLong() - openedAt) / 1_000_000;
                    state = State.CLOSED;
                    currentOpenNanos = openForNanos;
                    probing.set(false);
                    LOG.info(() -> Messages.REDIS_UP + ": " + target + " answers again after " + downMillis
                            + " ms; decisions are shared again");
                }
            }
        }
    }

    /** Opens the circuit at once, e.g. when Redis does not answer at start-up. */
    public synchronized void open(Throwable cause) {
        openedAt = nanoTime.getAsLong();
        openUntil = openedAt + currentOpenNanos;
        state = State.OPEN;
    }

    /** Redis failed or did not answer in time. */
    public void failure(Throwable cause) {
        if (state == State.HALF_OPEN) {
            synchronized (this) {
                currentOpenNanos = Math.min(currentOpenNanos * 2, maxOpenNanos);
                openUntil = nanoTime.getAsLong() + currentOpenNanos;
                state = State.OPEN;
                probing.set(false);
            }
            return;
        }
        if (failures.incrementAndGet() >= threshold && state == State.CLOSED) {
            synchronized (this) {
                if (state == State.CLOSED) {
                    openedAt = nanoTime.getAsLong();
                    openUntil = openedAt + currentOpenNanos;
                    state = State.OPEN;
                    LOG.warning(() -> Messages.REDIS_DOWN + ": " + target + " failed " + threshold
                            + " times in a row (last: " + cause + "); Tollgate stops calling it and applies the failure"
                            + " mode, probing it again in " + currentOpenNanos / 1_000_000 + " ms");
                }
            }
        }
    }
}
