package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link ConnectingPort} with a fake underlying port and an executor the test runs by hand: no
 * thread, no sleep. (The real thread and Jedis clients: {@code StartWithoutRedisIT}.)
 */
class ConnectingPortTest {

    /** A fake server: answers every script with {@code {7}}, reports {@code version}. */
    static final class FakePort implements RedisPort {
        final String version;
        boolean closed;
        int calls;

        FakePort(String version) {
            this.version = version;
        }

        @Override
        public long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args) {
            calls++;
            return new long[] {7};
        }

        @Override
        public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
            calls++;
            return new long[] {7};
        }

        @Override
        public String scriptLoad(String script, String routingKey) {
            calls++;
            return RedisStore.SHA1;
        }

        @Override
        public String serverVersion(String routingKey) {
            return version;
        }

        @Override
        public String describe() {
            return "fake " + version;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Makes ports from a script of outcomes: a version string makes a port, anything else throws. */
    static final class Factory implements Supplier<RedisPort> {
        final Deque<String> outcomes = new ArrayDeque<>();
        final List<FakePort> made = new ArrayList<>();
        int calls;

        Factory(String... outcomes) {
            this.outcomes.addAll(List.of(outcomes));
        }

        @Override
        public RedisPort get() {
            calls++;
            String next = outcomes.isEmpty() ? "down" : outcomes.poll();
            if (next.equals("down")) {
                throw new IllegalStateException("connection refused");
            }
            FakePort p = new FakePort(next);
            made.add(p);
            return p;
        }
    }

    /** Holds attempts until the test runs them. */
    static final class HeldAttempts implements Executor {
        final Deque<Runnable> held = new ArrayDeque<>();

        @Override
        public void execute(Runnable r) {
            held.add(r);
        }

        void runAll() {
            while (!held.isEmpty()) {
                held.poll().run();
            }
        }
    }

    static final List<byte[]> NONE = List.of();

    static ConnectingPort port(Factory f, Executor attempts) {
        return new ConnectingPort(f, attempts, Duration.ofMillis(1), Duration.ofMillis(1), "redis://test:1", null);
    }

    static long[] call(RedisPort p) {
        return p.evalsha(new byte[0], NONE, NONE);
    }

    @Test
    void theFirstAttemptRunsInTheCallersThreadAndItsFailureIsTheCallers() {
        Factory f = new Factory("down");
        HeldAttempts attempts = new HeldAttempts();
        ConnectingPort p = port(f, attempts);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> call(p));
        assertEquals("connection refused", e.getMessage());
        assertEquals(1, f.calls);
        assertTrue(attempts.held.isEmpty(), "no thread for the first attempt");
    }

    @Test
    void laterAttemptsRunOneAtATimeOffTheCallerAndTheNextCallUsesWhatTheyMade() {
        Factory f = new Factory("down", "7.0.15");
        HeldAttempts attempts = new HeldAttempts();
        ConnectingPort p = port(f, attempts);
        assertThrows(IllegalStateException.class, () -> call(p));
        for (int i = 0; i < 3; i++) { // the attempt has not run: each call fails after its wait, none starts another
            assertThrows(ConnectingPort.NotConnectedException.class, () -> call(p));
        }
        assertEquals(1, attempts.held.size(), "one attempt at a time");
        attempts.runAll();
        assertArrayEquals(new long[] {7}, call(p));
        assertArrayEquals(new long[] {7}, call(p));
        assertEquals(2, f.calls, "made once, then kept");
        assertEquals(2, f.made.get(0).calls);
        assertTrue(attempts.held.isEmpty());
    }

    @Test
    void aServerOlderThanSixIsRefusedLoggedOnceAndAnUpgradeIsPickedUp() {
        Factory f = new Factory("5.0.14", "5.0.14", "6.0.0");
        HeldAttempts attempts = new HeldAttempts();
        ConnectingPort p = port(f, attempts);
        List<String> logged = new ArrayList<>();
        Handler h = capture(logged);
        try {
            RedisVersion.TooOldException e = assertThrows(RedisVersion.TooOldException.class, () -> call(p));
            assertTrue(e.getMessage().contains("TOLLGATE-023: redis://test:1 runs Redis 5.0.14; Tollgate needs 6.0.0 or later"),
                    e.getMessage());
            assertTrue(f.made.get(0).closed, "a refused client is closed");
            assertEquals(0, f.made.get(0).calls, "no script ran on it");
            assertThrows(ConnectingPort.NotConnectedException.class, () -> call(p)); // starts the second attempt
            attempts.runAll(); // still 5.0.14
            assertTrue(f.made.get(1).closed);
            assertThrows(ConnectingPort.NotConnectedException.class, () -> call(p)); // starts the third
            attempts.runAll();
            assertArrayEquals(new long[] {7}, call(p), "upgraded in place: used without a restart");
            assertEquals(1, logged.stream().filter(m -> m.startsWith("TOLLGATE-023")).count(), "logged once: " + logged);
        } finally {
            Logger.getLogger("dev.tollgate.redis").removeHandler(h);
        }
    }

    @Test
    void aPortMadeAfterCloseIsClosedAndNeverUsed() {
        Factory f = new Factory("down", "7.0.15");
        HeldAttempts attempts = new HeldAttempts();
        ConnectingPort p = port(f, attempts);
        assertThrows(IllegalStateException.class, () -> call(p));
        assertThrows(ConnectingPort.NotConnectedException.class, () -> call(p));
        p.close(); // the attempt is in flight: close waits its bound (1 ms), then the attempt closes what it makes
        attempts.runAll();
        assertTrue(f.made.get(0).closed);
        assertThrows(IllegalStateException.class, () -> call(p), "closed");
    }

    @Test
    void closeClosesTheMadePort() {
        Factory f = new Factory("7.2.4");
        ConnectingPort p = port(f, new HeldAttempts());
        call(p);
        p.close();
        assertTrue(f.made.get(0).closed);
    }

    static Gen<List<String>> outcomes() {
        return lists(of("down", "5.0.14", "6.0.0", "7.0.15"), 0, 8);
    }

    /**
     * Whatever the attempts find (down, too old, fine) in whatever order, and however calls and
     * attempt runs interleave, each call succeeds or fails exactly as a small model says: the
     * first attempt runs in the first call; later ones are started by a call, one at a time, and
     * run when the test says; a call fails until an attempt has made a port of version 6 or later,
     * which is then kept. Every other port made is closed, and close closes the kept one.
     */
    @Test
    void callsSucceedExactlyAsTheModelSaysAndNoPortLeaks() {
        qt(300).forAll(outcomes(), steps()).checkAssert(this::callsSucceedExactlyAsTheModelSaysAndNoPortLeaks);
    }

    private void callsSucceedExactlyAsTheModelSaysAndNoPortLeaks(List<String> outcomes, List<Boolean> callOrRun) {
        Factory f = new Factory(outcomes.toArray(new String[0]));
        HeldAttempts attempts = new HeldAttempts();
        ConnectingPort p = port(f, attempts);
        Deque<String> model = new ArrayDeque<>(outcomes); // the outcomes the model has not used yet
        boolean tried = false;
        boolean pending = false;
        boolean published = false;
        for (boolean isCall : callOrRun) {
            if (isCall) {
                boolean expectSuccess;
                if (published) {
                    expectSuccess = true;
                } else if (!tried) {
                    tried = true;
                    published = usable(model.isEmpty() ? "down" : model.poll());
                    expectSuccess = published;
                } else {
                    pending = true;
                    expectSuccess = false;
                }
                boolean succeeded;
                try {
                    call(p);
                    succeeded = true;
                } catch (RuntimeException e) {
                    succeeded = false;
                }
                assertEquals(expectSuccess, succeeded, "call after " + callOrRun + " with outcomes " + outcomes);
            } else {
                if (pending) {
                    published = usable(model.isEmpty() ? "down" : model.poll());
                    pending = false;
                }
                attempts.runAll();
            }
            assertEquals(pending ? 1 : 0, attempts.held.size(), "attempts waiting to run");
            long open = f.made.stream().filter(m -> !m.closed).count();
            assertEquals(published ? 1 : 0, open, "ports left open");
        }
        p.close();
        attempts.runAll();
        assertTrue(f.made.stream().allMatch(m -> m.closed), "close closes everything made");
    }

    static boolean usable(String outcome) {
        return !outcome.equals("down") && RedisVersion.atLeast(outcome, RedisVersion.MINIMUM);
    }

    static Gen<List<Boolean>> steps() {
        return lists(of(true, false), 0, 12);
    }

    static Handler capture(List<String> into) {
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                into.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger.getLogger("dev.tollgate.redis").addHandler(h);
        return h;
    }
}
