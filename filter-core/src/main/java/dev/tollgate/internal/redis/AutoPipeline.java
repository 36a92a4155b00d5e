package dev.tollgate.internal.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Concurrent calls sent together: every caller queues its command, and whoever finds fewer than
 * {@code leaders} callers already sending becomes a leader, takes every queued command (up to
 * {@code maxBatch}), sends them in one write on one connection and reads the replies in one go.
 * This is smart batching: a caller alone sends its own command at once, as it would without
 * batching; under load, the commands that queued during one round trip leave together on the
 * next, so each write, read and wake-up of Redis and of this JVM serves many decisions.
 *
 * <p>Only a caller whose own command is still queued leads, and only while it has at least
 * {@code leadNanos} left before its deadline (the exchange may need that long, e.g. to open a
 * connection); it leads until its own command has left, then wakes the oldest waiting callers
 * that may lead, one per free lead, so no caller serves others for long and no queued command
 * waits beside a free lead. A caller whose command another leader took parks until it is
 * answered: no caller spins.
 *
 * <p>Every caller returns by its deadline, given an exchange that returns by the deadline it is
 * given (the leader's own): a command still queued then is withdrawn and fails as
 * {@link RedisPort.BusyException} (this node was congested; Redis was never asked); a command
 * already sent fails as a timeout, or as its batch failed.
 *
 * <p>Thread-safe. Replies come back in the order the commands were sent (Redis answers a
 * connection's commands in order), each one either a value or the exception to throw for it.
 *
 * @param <C> a command
 */
final class AutoPipeline<C> {

    /** Sends a batch on one connection and returns one reply or exception per command, in order. */
    interface Exchange<C> {
        /**
         * @param deadlineNanos when the sender must have returned, on the pipeline's clock: what is
         *                      not answered by then fails (the exchange's own timeouts enforce it)
         */
        List<Object> send(List<C> commands, long deadlineNanos);
    }

    /** Thrown to a caller whose command was sent but not answered before its deadline. */
    static final class TimeoutException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TimeoutException() {
            super("no answer from Redis within the time budget (pipelined)", null, false, false);
        }
    }

    /**
     * How a caller waits and is woken. Production uses {@link LockSupport}; a test passes its own
     * to schedule threads deterministically and to count each turn of a caller's loop.
     */
    interface Waiting {
        Waiting LOCK_SUPPORT = new Waiting() {
        };

        /** Called at every turn of a caller's loop. */
        default void turn() {
        }

        default void park(Object blocker, long nanos) {
            LockSupport.parkNanos(blocker, nanos);
        }

        default void unpark(Thread thread) {
            LockSupport.unpark(thread);
        }
    }

    private static final int QUEUED = 0;
    private static final int TAKEN = 1;
    private static final int DONE = 2;
    private static final int WITHDRAWN = 3;

    private static final class Call<C> {
        static final AtomicIntegerFieldUpdater<Call> STATE = AtomicIntegerFieldUpdater.newUpdater(Call.class, "state");

        final C command;
        final long deadline;
        final Thread caller = Thread.currentThread();
        volatile int state = QUEUED;
        /** Its caller holds a lead: waking it would not free anything. */
        volatile boolean leads;
        Object reply; // written before state becomes DONE, read after

        Call(C command, long deadline) {
            this.command = command;
            this.deadline = deadline;
        }
    }

    private final ConcurrentLinkedQueue<Call<C>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger leading = new AtomicInteger();
    private final int leaders;
    private final int maxBatch;
    private final long leadNanos;
    private final Exchange<C> exchange;
    private final LongSupplier nanoTime;
    private final Waiting waiting;

    AutoPipeline(int leaders, int maxBatch, long leadNanos, Exchange<C> exchange, LongSupplier nanoTime) {
        this(leaders, maxBatch, leadNanos, exchange, nanoTime, Waiting.LOCK_SUPPORT);
    }

    /**
     * @param leadNanos the least time a caller must have left to lead (to start sending a batch)
     */
    AutoPipeline(int leaders, int maxBatch, long leadNanos, Exchange<C> exchange, LongSupplier nanoTime, Waiting waiting) {
        if (leaders < 1 || maxBatch < 1 || leadNanos < 0) {
            throw new IllegalArgumentException("leaders and maxBatch must be at least 1, leadNanos at least 0");
        }
        this.leaders = leaders;
        this.maxBatch = maxBatch;
        this.leadNanos = leadNanos;
        this.exchange = exchange;
        this.nanoTime = nanoTime;
        this.waiting = waiting;
    }

    /**
     * Sends a command, with others if others are waiting, and returns its reply.
     *
     * @param deadlineNanos when this caller gives up, on the pipeline's clock
     * @throws RuntimeException the command's own error, the batch's failure, {@link TimeoutException}
     *                          or {@link RedisPort.BusyException}
     */
    Object call(C command, long deadlineNanos) {
        Call<C> call = new Call<>(command, deadlineNanos);
        queue.add(call);
        try {
            while (true) {
                waiting.turn();
                if (call.state == DONE) {
                    return reply(call);
                }
                long left = deadlineNanos - nanoTime.getAsLong();
                if (call.state == QUEUED && mayLead(left) && takeLead()) {
                    call.leads = true;
                    try {
                        while (call.state == QUEUED && mayLead(deadlineNanos - nanoTime.getAsLong())
                                && sendOneBatch(deadlineNanos)) {
                            // lead until our own command has left (or our time for it is up)
                        }
                    } finally {
                        call.leads = false;
                        leading.decrementAndGet();
                    }
                    wakeNext(); // the lead is free, and others may be queued behind us
                    continue;
                }
                if (left <= 0) {
                    if (Call.STATE.compareAndSet(call, QUEUED, WITHDRAWN)) {
                        queue.remove(call);
                        throw new RedisPort.BusyException(null);
                    }
                    if (call.state != DONE) {
                        throw new TimeoutException(); // sent; its reply will find nobody waiting
                    }
                    continue;
                }
                // taken by another leader, or no lead free: whoever answers it or frees a lead wakes us
                waiting.park(this, left);
            }
        } finally {
            wakeNext();
        }
    }

    private boolean mayLead(long leftNanos) {
        return leftNanos > 0 && leftNanos >= leadNanos;
    }

    private boolean takeLead() {
        for (int n = leading.get(); n < leaders; n = leading.get()) {
            if (leading.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    private static Object reply(Call<?> call) {
        if (call.reply instanceof RuntimeException e) {
            throw e;
        }
        if (call.reply instanceof Error e) {
            throw e;
        }
        return call.reply;
    }

    /** Takes up to maxBatch queued commands and sends them; false when there were none. */
    private boolean sendOneBatch(long deadlineNanos) {
        // a batch of one (a caller alone, the usual case below saturation) allocates no list of its own
        Call<C> first = null;
        List<Call<C>> more = null;
        int taken = 0;
        Call<C> c;
        while (taken < maxBatch && (c = queue.poll()) != null) {
            if (Call.STATE.compareAndSet(c, QUEUED, TAKEN)) {
                if (first == null) {
                    first = c;
                } else {
                    if (more == null) {
                        more = new ArrayList<>(Math.min(maxBatch, 16));
                        more.add(first);
                    }
                    more.add(c);
                }
                taken++;
            }
        }
        if (first == null) {
            return false;
        }
        List<C> commands;
        if (more == null) {
            commands = List.of(first.command);
        } else {
            commands = new ArrayList<>(taken);
            for (int i = 0; i < taken; i++) {
                commands.add(more.get(i).command);
            }
        }
        List<Object> replies;
        try {
            replies = exchange.send(commands, deadlineNanos);
            if (replies.size() != taken) {
                throw new IllegalStateException(replies.size() + " replies to " + taken + " commands");
            }
        } catch (RuntimeException | Error e) {
            replies = Collections.nCopies(taken, e);
        }
        Thread self = Thread.currentThread();
        for (int i = 0; i < taken; i++) {
            Call<C> b = more == null ? first : more.get(i);
            b.reply = replies.get(i);
            b.state = DONE;
            if (b.caller != self) {
                waiting.unpark(b.caller);
            }
        }
        return true;
    }

    /**
     * Wakes the oldest queued callers that may still lead, one per free lead, so that they send
     * the queue: called by every caller on its way out and by every leader stepping down, so that
     * no queued command waits unsent while a lead is free and its caller may lead.
     */
    private void wakeNext() {
        int free = leaders - leading.get();
        if (free <= 0) {
            return; // the leaders still at work will wake someone when they step down
        }
        long now = nanoTime.getAsLong();
        for (Call<C> c : queue) {
            if (c.state == QUEUED && !c.leads && mayLead(c.deadline - now)) {
                waiting.unpark(c.caller);
                if (--free == 0) {
                    return;
                }
            }
        }
    }

    /** How many callers may send at once (for tests). */
    int leaders() {
        return leaders;
    }

    /** Commands waiting to be sent (for tests and metrics). */
    int queued() {
        return queue.size();
    }
}
