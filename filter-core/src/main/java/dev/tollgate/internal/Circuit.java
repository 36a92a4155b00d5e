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
 * that fails opens it again for {@code openFor}. So a dead Redis costs one request's budget per
 * {@code openFor}, and Redis decides again at most {@code openFor} after it is back.
 *
 * <p>Each transition is logged once: {@code TOLLGATE-021} when it opens, {@code TOLLGATE-022}
 * when it closes. Thread-safe.
 */
public final class Circuit {

    /** Where the circuit stands. */
    public enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    private static final Logger LOG = Logger.getLogger("dev.tollgate.redis");

    private final int threshold;
    private final long openForNanos;
    private final LongSupplier nanoTime;
    private final String target;

    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile State state = State.CLOSED;
    private volatile long openUntil;
    private volatile long openedAt;
    private volatile long downBefore;

    public Circuit(int threshold, Duration openFor, LongSupplier nanoTime, String target) {
        this.threshold = threshold;
        this.openForNanos = openFor.toNanos();
        this.nanoTime = nanoTime;
        this.target = target;
    }

    public State state() {
        return state;
    }

    /** The state as a number for a gauge: 0 closed, 1 half-open, 2 open. */
    public int stateCode() {
        State s = state;
        return s == State.CLOSED ? 0 : s == State.HALF_OPEN ? 1 : 2;
    }

    /** The time spent not closed so far, the current outage included. */
    public long downNanos() {
        long total = downBefore;
        if (state != State.CLOSED) {
            total += nanoTime.getAsLong() - openedAt;
        }
        return total;
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
                    long down = nanoTime.getAsLong() - openedAt;
                    long downMillis = down / 1_000_000;
                    downBefore += down;
                    state = State.CLOSED;
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
        openUntil = openedAt + openForNanos;
        state = State.OPEN;
    }

    /** Redis failed or did not answer in time. */
    public void failure(Throwable cause) {
        if (state == State.HALF_OPEN) {
            synchronized (this) {
                openUntil = nanoTime.getAsLong() + openForNanos;
                state = State.OPEN;
                probing.set(false);
            }
            return;
        }
        if (failures.incrementAndGet() >= threshold && state == State.CLOSED) {
            synchronized (this) {
                if (state == State.CLOSED) {
                    openedAt = nanoTime.getAsLong();
                    openUntil = openedAt + openForNanos;
                    state = State.OPEN;
                    LOG.warning(() -> Messages.REDIS_DOWN + ": " + target + " failed " + threshold
                            + " times in a row (last: " + cause + "); Tollgate stops calling it and applies the failure"
                            + " mode, probing it every " + openForNanos / 1_000_000 + " ms");
                }
            }
        }
    }
}
