package dev.tollgate.internal.engine;

import dev.tollgate.CircuitState;
import dev.tollgate.internal.Messages;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 * <p>A call to Redis is a {@link Call}, taken with {@link #tryCall()} and closed when it ends
 * (try-with-resources), with a verdict on Redis ({@link Call#succeeded()}, {@link Call#failed})
 * or without one (the pool was busy, an {@link Error}, anything else): a probe closed without a
 * verdict lets the next request probe at once. A probe never closed at all (its thread never came
 * back) counts as lost after {@code openFor}, and the next request probes. So the circuit cannot
 * stay half-open: once Redis answers, it is closed at most {@code openFor} and one call later.
 * A verdict counts only for the state its call was allowed in: a call allowed while closed that
 * fails after the circuit opened changes nothing.
 *
 * <p>Each transition is logged once: {@code TOLLGATE-021} when it opens, {@code TOLLGATE-022}
 * when it closes. Thread-safe: every transition is one compare-and-set of an immutable phase.
 */
public final class Circuit {

    /**
     * A permission to call Redis, from {@link #tryCall()}. Close it when the call ends; before
     * that, say what Redis did, if the call says anything about Redis. Thread-safe.
     */
    public final class Call implements AutoCloseable {
        private final long epoch;
        /** Only a probe's end changes the state whatever its verdict, so only a probe is settled once. */
        private final AtomicBoolean settled;

        private Call(long epoch, boolean probe) {
            this.epoch = epoch;
            this.settled = probe ? new AtomicBoolean() : null;
        }

        /** Redis answered. */
        public void succeeded() {
            if (settle()) {
                Circuit.this.succeeded(epoch);
            }
        }

        /** Redis failed or did not answer in time. */
        public void failed(Throwable cause) {
            if (settle()) {
                Circuit.this.failed(epoch, cause);
            }
        }

        /** Ends the call; without a verdict before, it says nothing about Redis and a probe is handed on. */
        @Override
        public void close() {
            if (settle()) {
                Circuit.this.abandoned(epoch);
            }
        }

        private boolean settle() {
            return settled == null || settled.compareAndSet(false, true);
        }
    }

    /**
     * One state of the circuit, never changed: a transition replaces it. {@code epoch} grows with
     * every transition and names the state a call was allowed in.
     *
     * @param untilNanos open: when the next probe may go; half-open: when the probe counts as lost
     * @param downSinceNanos when the current outage began (not closed)
     * @param closedCall the one call object handed out while closed (it carries only the epoch)
     */
    private record Phase(CircuitState state, long epoch, int failures, long untilNanos, long downSinceNanos, Call closedCall) {
    }

    private static final Logger LOG = Logger.getLogger("dev.tollgate.redis");

    private final int threshold;
    private final long openForNanos;
    private final LongSupplier nanoTime;
    private final String target;

    private final AtomicReference<Phase> phase;
    private final AtomicLong downBefore = new AtomicLong();

    public Circuit(int threshold, Duration openFor, LongSupplier nanoTime, String target) {
        this.threshold = threshold;
        this.openForNanos = openFor.toNanos();
        this.nanoTime = nanoTime;
        this.target = target;
        this.phase = new AtomicReference<>(closed(0));
    }

    private Phase closed(long epoch) {
        return new Phase(CircuitState.CLOSED, epoch, 0, 0, 0, new Call(epoch, false));
    }

    public CircuitState state() {
        return phase.get().state();
    }

    /** The state as a number for a gauge: 0 closed, 1 half-open, 2 open. */
    public int stateCode() {
        CircuitState s = state();
        return s == CircuitState.CLOSED ? 0 : s == CircuitState.HALF_OPEN ? 1 : 2;
    }

    /** The time spent not closed so far, the current outage included. */
    public long downNanos() {
        Phase p = phase.get();
        long total = downBefore.get();
        if (p.state() != CircuitState.CLOSED) {
            total += nanoTime.getAsLong() - p.downSinceNanos();
        }
        return total;
    }

    /**
     * A call to Redis, or {@code null} when the circuit is open. When not closed, the call returned
     * is the probe, and no other request gets one until it is closed or lost.
     */
    public Call tryCall() {
        while (true) {
            Phase p = phase.get();
            if (p.state() == CircuitState.CLOSED) {
                return p.closedCall();
            }
            long now = nanoTime.getAsLong();
            if (now - p.untilNanos() < 0) {
                return null;
            }
            Call probe = new Call(p.epoch() + 1, true);
            Phase half = new Phase(CircuitState.HALF_OPEN, p.epoch() + 1, 0, now + openForNanos, p.downSinceNanos(), null);
            if (phase.compareAndSet(p, half)) {
                return probe;
            }
        }
    }

    /** Opens the circuit at once, e.g. when Redis does not answer at start-up. */
    public void open(Throwable cause) {
        while (true) {
            Phase p = phase.get();
            long now = nanoTime.getAsLong();
            long since = p.state() == CircuitState.CLOSED ? now : p.downSinceNanos();
            if (phase.compareAndSet(p, new Phase(CircuitState.OPEN, p.epoch() + 1, 0, now + openForNanos, since, null))) {
                return;
            }
        }
    }

    private void succeeded(long epoch) {
        while (true) {
            Phase p = phase.get();
            if (p.epoch() != epoch || (p.state() == CircuitState.CLOSED && p.failures() == 0)) {
                return;
            }
            if (p.state() == CircuitState.CLOSED) {
                if (phase.compareAndSet(p, new Phase(CircuitState.CLOSED, epoch, 0, 0, 0, p.closedCall()))) {
                    return;
                }
                continue;
            }
            if (phase.compareAndSet(p, closed(epoch + 1))) {
                long down = nanoTime.getAsLong() - p.downSinceNanos();
                downBefore.addAndGet(down);
                LOG.info(() -> Messages.redisUp(target, down / 1_000_000));
                return;
            }
        }
    }

    private void failed(long epoch, Throwable cause) {
        while (true) {
            Phase p = phase.get();
            if (p.epoch() != epoch) {
                return;
            }
            long now = nanoTime.getAsLong();
            if (p.state() == CircuitState.HALF_OPEN) {
                if (phase.compareAndSet(p, new Phase(CircuitState.OPEN, epoch + 1, 0, now + openForNanos, p.downSinceNanos(), null))) {
                    return;
                }
                continue;
            }
            int failures = p.failures() + 1;
            if (failures < threshold) {
                if (phase.compareAndSet(p, new Phase(CircuitState.CLOSED, epoch, failures, 0, 0, p.closedCall()))) {
                    return;
                }
                continue;
            }
            if (phase.compareAndSet(p, new Phase(CircuitState.OPEN, epoch + 1, 0, now + openForNanos, now, null))) {
                LOG.warning(() -> Messages.redisDown(target, threshold, cause, openForNanos / 1_000_000));
                return;
            }
        }
    }

    /** A probe ended without a verdict: open, with the open period over, so the next request probes. */
    private void abandoned(long epoch) {
        while (true) {
            Phase p = phase.get();
            if (p.epoch() != epoch || p.state() != CircuitState.HALF_OPEN) {
                return;
            }
            long now = nanoTime.getAsLong();
            if (phase.compareAndSet(p, new Phase(CircuitState.OPEN, epoch + 1, 0, now, p.downSinceNanos(), null))) {
                return;
            }
        }
    }
}
