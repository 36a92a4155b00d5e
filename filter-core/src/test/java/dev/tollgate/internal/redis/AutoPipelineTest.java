package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The batching of concurrent calls, with an exchange the test drives: it records each batch and
 * can hold one on the wire until the test releases it. No test asserts on time; the timeout on
 * the class only turns a hang into a failure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AutoPipelineTest {

    static final long LONG = TimeUnit.SECONDS.toNanos(30);

    /** A deadline that far from now. */
    static long in(long nanos) {
        return System.nanoTime() + nanos;
    }

    /** Answers each command with what {@code answer} makes of it; can hold the next batch. */
    static final class Wire implements AutoPipeline.Exchange<String> {
        final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
        final Function<String, Object> answer;
        volatile CountDownLatch sent = new CountDownLatch(1);
        volatile CountDownLatch hold;

        Wire(Function<String, Object> answer) {
            this.answer = answer;
        }

        @Override
        public List<Object> send(List<String> commands, long deadlineNanos) {
            batches.add(List.copyOf(commands));
            sent.countDown();
            CountDownLatch h = hold;
            if (h != null) {
                try {
                    h.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            List<Object> out = new ArrayList<>();
            for (String c : commands) {
                Object a = answer.apply(c);
                if (a instanceof RuntimeException e && e.getMessage().equals("whole batch")) {
                    throw e;
                }
                out.add(a);
            }
            return out;
        }
    }

    final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** Waits until n commands are queued behind the batch on the wire. */
    static void awaitQueued(AutoPipeline<?> p, int n) throws InterruptedException {
        while (p.queued() < n) {
            Thread.sleep(1);
        }
    }

    /** A pipeline with one lead whose first batch, ["first"], is held on the wire. */
    final class Held {
        final Wire wire = new Wire(c -> "re:" + c);
        final CountDownLatch hold = new CountDownLatch(1);
        final AutoPipeline<String> p;
        final Future<Object> first;

        Held() throws InterruptedException {
            this(System::nanoTime, 0);
        }

        Held(java.util.function.LongSupplier nanoTime, long leadNanos) throws InterruptedException {
            p = new AutoPipeline<>(1, 128, leadNanos, wire, nanoTime);
            wire.hold = hold;
            first = threads.submit(() -> p.call("first", nanoTime.getAsLong() + LONG));
            wire.sent.await();
        }

        /** Lets the first batch be answered; the next batch is sent without holding, unless {@code next} holds it. */
        void release(CountDownLatch next) {
            wire.sent = new CountDownLatch(1);
            wire.hold = next;
            hold.countDown();
        }
    }

    @Test
    void aCallerAloneSendsItsCommandAtOnceOnItsOwnThread() {
        List<Thread> senders = new ArrayList<>();
        AutoPipeline<String> p = new AutoPipeline<>(4, 128, 0, (commands, deadline) -> {
            senders.add(Thread.currentThread());
            return List.of("re:" + commands.get(0));
        }, System::nanoTime);
        assertEquals("re:a", p.call("a", in(LONG)));
        assertEquals("re:b", p.call("b", in(LONG)));
        assertEquals(List.of(Thread.currentThread(), Thread.currentThread()), senders);
        assertEquals(0, p.queued());
    }

    @Test
    void callsThatQueueDuringARoundTripLeaveTogetherOnTheNextAndEachGetsItsOwnReply() throws Exception {
        Held held = new Held();
        List<Future<Object>> later = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String c = "c" + i;
            later.add(threads.submit(() -> held.p.call(c, in(LONG))));
        }
        awaitQueued(held.p, 10);
        held.release(null); // the first batch is answered; its leader hands the lead on
        assertEquals("re:first", held.first.get());
        for (int i = 0; i < 10; i++) {
            assertEquals("re:c" + i, later.get(i).get(), "each caller gets the reply to its own command");
        }
        assertEquals(2, held.wire.batches.size(), "ten calls, one write: " + held.wire.batches);
        assertEquals(List.of("first"), held.wire.batches.get(0));
        assertEquals(10, held.wire.batches.get(1).size());
    }

    @Test
    void aCommandsOwnErrorGoesToItsCallerAndABatchFailureToEveryCallerInIt() throws Exception {
        RuntimeException noScript = new IllegalStateException("NOSCRIPT");
        RuntimeException down = new IllegalStateException("whole batch");
        Wire wire = new Wire(c -> c.equals("bad") ? noScript : c.startsWith("down") ? down : "ok");
        AutoPipeline<String> p = new AutoPipeline<>(2, 128, 0, wire, System::nanoTime);
        assertSame(noScript, assertThrows(IllegalStateException.class, () -> p.call("bad", in(LONG))));
        assertEquals("ok", p.call("good", in(LONG)), "the next call is unaffected");
        assertSame(down, assertThrows(IllegalStateException.class, () -> p.call("down", in(LONG))));
        assertEquals("ok", p.call("good", in(LONG)));
    }

    @Test
    void aQueuedCommandPastItsDeadlineIsWithdrawnAndNeverSent() throws Exception {
        Held held = new Held();
        assertThrows(RedisPort.BusyException.class, () -> held.p.call("late", System.nanoTime()),
                "the only lead is busy and the caller cannot wait: this node is congested");
        assertEquals(0, held.p.queued(), "the withdrawn command left the queue");
        held.release(null);
        assertEquals("re:first", held.first.get());
        assertEquals("re:next", held.p.call("next", in(LONG)));
        for (List<String> b : held.wire.batches) {
            assertFalse(b.contains("late"), "never sent: " + held.wire.batches);
        }
    }

    @Test
    void aSentCommandStillUnansweredAtItsDeadlineFailsAsATimeout() throws Exception {
        // The pipeline's clock is the test's: third's deadline passes only when the test says,
        // after its command is on the wire, however slowly the threads get there. A caller needs
        // 300 ms left to lead, so third (200 ms) can never lead: second sends the batch, and third
        // only waits. (Were third the leader, it would sit in the held exchange with the batch and
        // the test would hang: CI once saw exactly that when third queued first.)
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        Held held = new Held(clock::get, TimeUnit.MILLISECONDS.toNanos(300));
        Future<Object> second = threads.submit(() -> held.p.call("second", LONG));
        CompletableFuture<Object> third = new CompletableFuture<>();
        threads.submit(() -> {
            try {
                third.complete(held.p.call("third", TimeUnit.MILLISECONDS.toNanos(200)));
            } catch (RuntimeException e) {
                third.completeExceptionally(e);
            }
        });
        awaitQueued(held.p, 2);
        // the second batch, [second, third], stays on the wire until third has given up
        CountDownLatch secondHold = new CountDownLatch(1);
        held.release(secondHold);
        assertEquals("re:first", held.first.get());
        held.wire.sent.await();
        assertEquals(java.util.Set.of("second", "third"), java.util.Set.copyOf(held.wire.batches.get(1)),
                "both queued commands leave in the next batch, in whichever order the two threads queued them");
        clock.set(TimeUnit.MILLISECONDS.toNanos(201)); // third's deadline has passed; second's has not
        Exception e = assertThrows(Exception.class, third::get);
        assertTrue(e.getCause() instanceof AutoPipeline.TimeoutException, String.valueOf(e.getCause()));
        secondHold.countDown();
        assertEquals("re:second", second.get(), "the others of the batch are answered as usual");
    }

    /**
     * Two leads. B queues its command, and before B looks again, A leads and takes it with its own:
     * B's command is on the wire and a lead is free. B must park until A's batch is answered, not
     * lead an empty queue over and over. The clock never moves, so only the answer can wake B.
     */
    @Test
    void aCallerWhoseCommandAnotherLeaderSentParksInsteadOfSpinning() throws Exception {
        CountDownLatch onTheWire = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
        AutoPipeline.Exchange<String> wire = (commands, deadline) -> {
            batches.add(List.copyOf(commands));
            onTheWire.countDown();
            try {
                answer.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            List<Object> out = new ArrayList<>();
            commands.forEach(c -> out.add("re:" + c));
            return out;
        };
        CountDownLatch bQueued = new CountDownLatch(1);
        CountDownLatch bGoesOn = new CountDownLatch(1);
        CountDownLatch bDecided = new CountDownLatch(1);
        AtomicInteger bTurns = new AtomicInteger();
        AtomicInteger bParks = new AtomicInteger();
        AutoPipeline.Waiting counting = new AutoPipeline.Waiting() {
            @Override
            public void turn() {
                if (!Thread.currentThread().getName().equals("B")) {
                    return;
                }
                int n = bTurns.incrementAndGet();
                if (n == 1) {
                    bQueued.countDown(); // B's command is queued; A may take it now
                    await(bGoesOn);
                } else if (n > 1_000) {
                    bDecided.countDown();
                    throw new AssertionError("B spins");
                }
            }

            @Override
            public void park(Object blocker, long nanos) {
                if (Thread.currentThread().getName().equals("B")) {
                    bParks.incrementAndGet();
                    bDecided.countDown();
                }
                AutoPipeline.Waiting.super.park(blocker, nanos);
            }
        };
        long now = 1_000_000L;
        AutoPipeline<String> p = new AutoPipeline<>(2, 128, 0, wire, () -> now, counting);
        FutureTask<Object> b = new FutureTask<>(() -> p.call("b", now + LONG));
        FutureTask<Object> a = new FutureTask<>(() -> p.call("a", now + LONG));
        start(b, "B");
        bQueued.await();
        start(a, "A");
        onTheWire.await();
        assertEquals(List.of("b", "a"), batches.get(0), "A took B's command with its own");
        bGoesOn.countDown();
        bDecided.await();
        assertEquals(1, bParks.get(), "B parked, after " + bTurns.get() + " turns");
        assertTrue(bTurns.get() <= 2, "B looked once more, then parked: " + bTurns.get() + " turns");
        answer.countDown();
        assertEquals("re:a", a.get());
        assertEquals("re:b", b.get());
        assertEquals(1, batches.size(), "nothing else was sent");
        assertTrue(bTurns.get() <= 3, "woken by its answer, B returns: " + bTurns.get() + " turns in all");
    }

    static void start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void manyThreadsEachGetTheirOwnRepliesAndNothingIsLost() throws Exception {
        Wire wire = new Wire(c -> "re:" + c);
        AutoPipeline<String> p = new AutoPipeline<>(3, 16, 0, wire, System::nanoTime);
        int callers = 16;
        int each = 2_000;
        List<Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < callers; t++) {
            int id = t;
            done.add(threads.submit(() -> {
                int right = 0;
                for (int i = 0; i < each; i++) {
                    String c = id + ":" + i;
                    right += p.call(c, in(LONG)).equals("re:" + c) ? 1 : 0;
                }
                return right;
            }));
        }
        for (Future<Integer> f : done) {
            assertEquals(each, f.get());
        }
        int sent = 0;
        for (List<String> b : wire.batches) {
            assertTrue(b.size() <= 16, "a batch never exceeds its bound: " + b.size());
            sent += b.size();
        }
        assertEquals(callers * each, sent, "every command was sent exactly once");
        assertEquals(0, p.queued());
    }
}
