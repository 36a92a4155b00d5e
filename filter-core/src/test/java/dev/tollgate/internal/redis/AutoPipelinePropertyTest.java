package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The pipeline's liveness, with callers on real threads run one at a time by a scheduler that
 * picks, at every turn of a caller's loop, which ready thread goes on (from a generated list of
 * choices, so every interleaving at those points can be generated and a failure replays), and a
 * virtual clock that moves only when no thread is ready: all are parked in the pipeline, or sending
 * a batch to a simulated Redis that answers each batch after a generated round trip, or never.
 * A caller that turns round its loop more than {@link Simulation#SPIN_LIMIT} times without waiting
 * spins.
 */
class AutoPipelinePropertyTest {

    static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long HUNG = Long.MAX_VALUE;

    /** A caller: when it calls, and how long it may wait in all. */
    record Caller(long startMs, long budgetMs) {
    }

    /** What a caller saw. */
    record Result(String command, long deadlineNanos, long returnedNanos, Object reply) {
    }

    /**
     * Runs callers against one pipeline. Thread-safe: the state is guarded by the simulation's
     * monitor; at most one caller thread runs at a time, the one the scheduler marked running.
     */
    static final class Simulation implements AutoPipeline.Waiting, AutoPipeline.Exchange<String> {
        /**
         * Turns a caller may make between two waits. Each turn returns, leads (then waits on the
         * wire) or parks, and a park returns without waiting only on a wake-up given while the
         * caller ran: two turns suffice in every interleaving generated here; four leave room.
         */
        static final int SPIN_LIMIT = 4;

        enum Status {
            READY, RUNNING, PARKED, SENDING, DONE
        }

        /** A batch on the wire: its sender goes on when the clock reaches {@code releaseAt}. */
        static final class Sent {
            final Thread sender = Thread.currentThread();
            final long releaseAt;
            final boolean answered;

            Sent(long releaseAt, boolean answered) {
                this.releaseAt = releaseAt;
                this.answered = answered;
            }
        }

        volatile long now = 1_000_000 * MS;
        final List<Long> roundTrips;
        final List<Integer> choices;
        final long leadNanos;
        int choice;
        /** By name, so that a choice names the same thread in every replay. */
        final Map<String, Thread> threads = new TreeMap<>();
        final Map<Thread, Status> status = new HashMap<>();
        final Map<Thread, Long> parkedUntil = new HashMap<>();
        final Set<Thread> permits = new HashSet<>();
        final Map<Thread, Integer> turns = new HashMap<>();
        final List<Sent> onTheWire = new ArrayList<>();
        final List<List<String>> batches = new ArrayList<>();
        final List<Result> results = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();
        final Map<String, Long> deadlines = new HashMap<>();
        AutoPipeline<String> pipeline;

        Simulation(List<Long> roundTrips, List<Integer> choices, long leadNanos) {
            this.roundTrips = roundTrips;
            this.choices = choices;
            this.leadNanos = leadNanos;
        }

        long nanoTime() {
            return now;
        }

        @Override
        public synchronized void turn() {
            Thread t = Thread.currentThread();
            int n = turns.merge(t, 1, Integer::sum);
            if (n > SPIN_LIMIT) {
                throw new AssertionError(t.getName() + " spins: " + n + " turns without waiting");
            }
            waitFor(t, Status.READY);
        }

        @Override
        public synchronized void park(Object blocker, long nanos) {
            Thread t = Thread.currentThread();
            if (permits.remove(t)) {
                return; // as LockSupport: an earlier unpark lets the next park return at once
            }
            parkedUntil.put(t, now + nanos);
            waitFor(t, Status.PARKED);
            turns.put(t, 0);
        }

        @Override
        public synchronized void unpark(Thread t) {
            if (status.get(t) == Status.PARKED) {
                status.put(t, Status.READY);
                parkedUntil.remove(t);
            } else {
                permits.add(t);
            }
        }

        @Override
        public List<Object> send(List<String> commands, long deadlineNanos) {
            Sent sent;
            synchronized (this) {
                if (deadlineNanos - now < leadNanos) {
                    errors.add(new AssertionError("a batch sent with " + (deadlineNanos - now) / MS + " ms left"));
                }
                long rtt = roundTrips.get(batches.size() % roundTrips.size());
                batches.add(List.copyOf(commands));
                // as Redis read with a timeout of what is left before the deadline
                boolean answered = rtt != HUNG && rtt <= deadlineNanos - now;
                sent = new Sent(answered ? now + rtt : deadlineNanos, answered);
                onTheWire.add(sent);
                waitFor(Thread.currentThread(), Status.SENDING);
                turns.put(Thread.currentThread(), 0);
            }
            if (!sent.answered) {
                throw new IllegalStateException("read timed out");
            }
            List<Object> replies = new ArrayList<>();
            for (String c : commands) {
                replies.add("re:" + c);
            }
            return replies;
        }

        /** Gives up the run: waits in {@code why} until the scheduler makes this thread run again. */
        private void waitFor(Thread t, Status why) {
            status.put(t, why);
            notifyAll();
            while (status.get(t) != Status.RUNNING) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }

        private void start(String command, long budgetNanos) {
            long deadline = now + budgetNanos;
            deadlines.put(command, deadline);
            Thread t = new Thread(() -> {
                Object reply;
                synchronized (this) {
                    waitFor(Thread.currentThread(), Status.READY);
                }
                try {
                    reply = pipeline.call(command, deadline);
                } catch (RuntimeException e) {
                    reply = e;
                } catch (Throwable e) {
                    reply = e;
                    synchronized (this) {
                        errors.add(e);
                    }
                }
                synchronized (this) {
                    results.add(new Result(command, deadline, now, reply));
                    status.put(Thread.currentThread(), Status.DONE);
                    notifyAll();
                }
            }, command);
            t.setDaemon(true);
            threads.put(command, t);
            status.put(t, Status.RUNNING); // until it reports ready
            t.start();
        }

        /** Runs every caller to its end: one ready thread at a time, the clock moved when none is ready. */
        synchronized void run(List<Caller> callers) {
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < callers.size(); i++) {
                order.add(i);
            }
            order.sort((a, b) -> Long.compare(callers.get(a).startMs(), callers.get(b).startMs()));
            long origin = now;
            int started = 0;
            while (true) {
                while (status.containsValue(Status.RUNNING)) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                if (!errors.isEmpty()) {
                    throw new AssertionError("a caller failed: " + errors.get(0), errors.get(0));
                }
                List<Thread> ready = new ArrayList<>();
                for (Thread t : threads.values()) {
                    if (status.get(t) == Status.READY) {
                        ready.add(t);
                    }
                }
                if (!ready.isEmpty()) {
                    int pick = choices.isEmpty() ? 0 : choices.get(choice++ % choices.size());
                    status.put(ready.get(pick % ready.size()), Status.RUNNING);
                    notifyAll();
                    continue;
                }
                assertNoStall();
                long next = Long.MAX_VALUE;
                for (long until : parkedUntil.values()) {
                    next = Math.min(next, until);
                }
                for (Sent s : onTheWire) {
                    next = Math.min(next, s.releaseAt);
                }
                if (started < order.size()) {
                    next = Math.min(next, origin + callers.get(order.get(started)).startMs() * MS);
                }
                if (next == Long.MAX_VALUE) {
                    return; // every caller is done
                }
                now = Math.max(now, next);
                for (Sent s : onTheWire) {
                    if (s.releaseAt <= now) {
                        status.put(s.sender, Status.READY);
                    }
                }
                onTheWire.removeIf(s -> s.releaseAt <= now);
                for (Map.Entry<Thread, Long> p : new ArrayList<>(parkedUntil.entrySet())) {
                    if (p.getValue() <= now) {
                        unpark(p.getKey());
                    }
                }
                while (started < order.size() && origin + callers.get(order.get(started)).startMs() * MS <= now) {
                    int i = order.get(started++);
                    start("c" + i, callers.get(i).budgetMs() * MS);
                }
            }
        }

        /**
         * No thread is ready: if a lead is free, no caller that may lead waits with its command unsent
         * (a leader waits only on the wire, so the threads sending are the leads in use).
         */
        private void assertNoStall() {
            long sending = status.values().stream().filter(st -> st == Status.SENDING).count();
            if (sending >= pipeline.leaders()) {
                return;
            }
            Set<String> sent = new HashSet<>();
            batches.forEach(sent::addAll);
            for (Thread t : parkedUntil.keySet()) {
                String command = t.getName();
                long left = deadlines.get(command) - now;
                if (!sent.contains(command) && left > 0 && left >= leadNanos) {
                    throw new AssertionError(command + " waits unsent with " + left / MS + " ms left while "
                            + (pipeline.leaders() - sending) + " leads are free");
                }
            }
        }
    }

    /** The pipeline's bounds: how many leads, the batch size, the time a leader needs. */
    record Bounds(int leaders, int maxBatch, int leadMs) {
    }

    static Gen<List<Caller>> callers() {
        Gen<Long> start = longs(0, 150);
        Gen<Long> budget = longs(1, 200);
        return lists(start.zip(budget, Caller::new), 1, 8);
    }

    static Gen<List<Long>> roundTrips() {
        Gen<Long> rtt = frequency(
                weight(3, longs(0, 250).map(ms -> ms * MS)),
                weight(1, just(HUNG)));
        return lists(rtt, 1, 6);
    }

    static Gen<Bounds> bounds() {
        return ints(1, 3).zip(ints(1, 4), ints(0, 60), Bounds::new);
    }

    static Gen<List<Integer>> choices() {
        return lists(ints(0, 7), 0, 30);
    }

    /**
     * Whatever the number of callers and leads, the batch size, the time a leader needs, how Redis
     * answers and how threads interleave: no caller spins, every caller returns by its deadline, no
     * batch starts with less than the lead time left, no command waits unsent while a lead is free
     * and its caller may lead, and each caller gets its own reply, or the failure of a batch that
     * carried its command, or {@link RedisPort.BusyException} for a command never sent.
     */
    @Test
    void everyCallerReturnsByItsDeadlineAndNoneSpins() {
        qt(500).forAll(callers(), roundTrips(), bounds(), choices())
                .checkAssert(this::everyCallerReturnsByItsDeadlineAndNoneSpins);
    }

    private void everyCallerReturnsByItsDeadlineAndNoneSpins(List<Caller> callers, List<Long> roundTrips, Bounds bounds,
                                                             List<Integer> choices) {
        int leaders = bounds.leaders();
        int maxBatch = bounds.maxBatch();
        int leadMs = bounds.leadMs();
        Simulation sim = new Simulation(roundTrips, choices, leadMs * MS);
        sim.pipeline = new AutoPipeline<>(leaders, maxBatch, leadMs * MS, sim, sim::nanoTime, sim);
        sim.run(callers);
        assertEquals(callers.size(), sim.results.size(), "every caller returned");
        Map<String, Integer> sent = new HashMap<>();
        for (List<String> b : sim.batches) {
            assertTrue(b.size() <= maxBatch, "a batch within its bound: " + b);
            for (String c : b) {
                sent.merge(c, 1, Integer::sum);
            }
        }
        for (Result r : sim.results) {
            assertTrue(r.returnedNanos() <= r.deadlineNanos(), r.command() + " returned "
                    + (r.returnedNanos() - r.deadlineNanos()) / MS + " ms after its deadline; batches " + sim.batches);
            int times = sent.getOrDefault(r.command(), 0);
            assertTrue(times <= 1, r.command() + " sent " + times + " times");
            if (r.reply() instanceof RedisPort.BusyException) {
                assertEquals(0, times, r.command() + " was withdrawn, so never sent");
            } else if (r.reply() instanceof String s) {
                assertEquals("re:" + r.command(), s);
            } else if (!(r.reply() instanceof RuntimeException)) {
                fail(r.command() + " got " + r.reply());
            }
        }
    }
}
