package dev.tollgate.internal;

import java.util.ArrayList;
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
 * <p>A leader leads until its own command is answered, then hands the lead to the oldest waiting
 * caller, so no caller serves others for long. A caller waits for its answer at most until its
 * deadline: a command still queued then is withdrawn and fails as {@link RedisPort.BusyException}
 * (this node was congested; Redis was never asked); a command already sent fails as a timeout.
 *
 * <p>Thread-safe. Replies come back in the order the commands were sent (Redis answers a
 * connection's commands in order), each one either a value or the exception to throw for it.
 *
 * @param <C> a command
 */
final class AutoPipeline<C> {

    /** Sends a batch on one connection and returns one reply or exception per command, in order. */
    interface Exchange<C> {
        List<Object> send(List<C> commands);
    }

    /** Thrown to a caller whose command was sent but not answered before its deadline. */
    static final class TimeoutException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TimeoutException() {
            super("no answer from Redis within the time budget (pipelined)", null, false, false);
        }
    }

    private static final int QUEUED = 0;
    private static final int TAKEN = 1;
    private static final int DONE = 2;
    private static final int WITHDRAWN = 3;

    private static final class Call<C> {
        static final AtomicIntegerFieldUpdater<Call> STATE = AtomicIntegerFieldUpdater.newUpdater(Call.class, "state");

        final C command;
        final Thread caller = Thread.currentThread();
        volatile int state = QUEUED;
        Object reply; // written before state becomes DONE, read after

        Call(C command) {
            this.command = command;
        }
    }

    private final ConcurrentLinkedQueue<Call<C>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger leading = new AtomicInteger();
    private final int leaders;
    private final int maxBatch;
    private final Exchange<C> exchange;
    private final LongSupplier nanoTime;

    AutoPipeline(int leaders, int maxBatch, Exchange<C> exchange, LongSupplier nanoTime) {
        if (leaders < 1 || maxBatch < 1) {
            throw new IllegalArgumentException("leaders and maxBatch must be at least 1");
        }
        this.leaders = leaders;
        this.maxBatch = maxBatch;
        this.exchange = exchange;
        this.nanoTime = nanoTime;
    }

    /**
     * Sends a command, with others if others are waiting, and returns its reply.
     *
     * @param timeoutNanos how long this caller waits, in all
     * @throws RuntimeException the command's own error, the batch's failure, {@link TimeoutException}
     *                          or {@link RedisPort.BusyException}
     */
    Object call(C command, long timeoutNanos) {
        Call<C> call = new Call<>(command);
        long deadline = nanoTime.getAsLong() + timeoutNanos;
        queue.add(call);
        try {
            while (true) {
                if (call.state == DONE) {
                    return reply(call);
                }
                int n = leading.get();
                if (n < leaders && leading.compareAndSet(n, n + 1)) {
                    try {
                        while (call.state != DONE && sendOneBatch()) {
                            // lead until our own command is answered
                        }
                    } finally {
                        leading.decrementAndGet();
                    }
                    continue;
                }
                long left = deadline - nanoTime.getAsLong();
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
                LockSupport.parkNanos(this, left);
            }
        } finally {
            wakeNext();
        }
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
    private boolean sendOneBatch() {
        List<Call<C>> batch = new ArrayList<>(Math.min(maxBatch, 16));
        Call<C> c;
        while (batch.size() < maxBatch && (c = queue.poll()) != null) {
            if (Call.STATE.compareAndSet(c, QUEUED, TAKEN)) {
                batch.add(c);
            }
        }
        if (batch.isEmpty()) {
            return false;
        }
        List<C> commands = new ArrayList<>(batch.size());
        for (Call<C> b : batch) {
            commands.add(b.command);
        }
        List<Object> replies;
        try {
            replies = exchange.send(commands);
            if (replies.size() != batch.size()) {
                throw new IllegalStateException(replies.size() + " replies to " + batch.size() + " commands");
            }
        } catch (RuntimeException | Error e) {
            replies = java.util.Collections.nCopies(batch.size(), e);
        }
        Thread self = Thread.currentThread();
        for (int i = 0; i < batch.size(); i++) {
            Call<C> b = batch.get(i);
            b.reply = replies.get(i);
            b.state = DONE;
            if (b.caller != self) {
                LockSupport.unpark(b.caller);
            }
        }
        return true;
    }

    /**
     * Wakes the oldest waiting caller, if any and if a lead is free, so that it sends the queue:
     * called by every caller on its way out, leader or not, so that no queued command is left
     * without someone to send it.
     */
    private void wakeNext() {
        if (leading.get() >= leaders) {
            return; // the leaders still at work will wake someone when they leave
        }
        for (Call<C> head = queue.peek(); head != null; head = queue.peek()) {
            if (head.state == QUEUED) {
                LockSupport.unpark(head.caller);
                return;
            }
            queue.remove(head); // withdrawn, or taken by a leader between peek and check
        }
    }

    /** Commands waiting to be sent (for tests and metrics). */
    int queued() {
        return queue.size();
    }
}
