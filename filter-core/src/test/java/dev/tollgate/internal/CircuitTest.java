package dev.tollgate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CircuitTest {

    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Circuit circuit = new Circuit(3, Duration.ofSeconds(1), nanos::get, "redis://test");
    final RuntimeException down = new IllegalStateException("connection refused");

    void advanceMillis(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
    }

    @Test
    void opensAfterConsecutiveFailuresOnly() {
        circuit.failure(down);
        circuit.failure(down);
        circuit.success();
        circuit.failure(down);
        circuit.failure(down);
        assertEquals(Circuit.State.CLOSED, circuit.state(), "a success in between resets the count");
        circuit.failure(down);
        assertEquals(Circuit.State.OPEN, circuit.state());
        assertFalse(circuit.allowsCall(), "an open circuit calls nobody");
    }

    @Test
    void oneRequestProbesAfterTheOpenTimeAndASuccessCloses() {
        for (int i = 0; i < 3; i++) {
            circuit.failure(down);
        }
        advanceMillis(999);
        assertFalse(circuit.allowsCall());
        advanceMillis(1);
        assertTrue(circuit.allowsCall(), "the first request after a second probes");
        assertEquals(Circuit.State.HALF_OPEN, circuit.state());
        assertFalse(circuit.allowsCall(), "only one probe at a time");
        circuit.success();
        assertEquals(Circuit.State.CLOSED, circuit.state());
        assertTrue(circuit.allowsCall());
    }

    @Test
    void aFailedProbeDoublesTheWaitUpToThirtySeconds() {
        for (int i = 0; i < 3; i++) {
            circuit.failure(down);
        }
        long[] waits = {1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000};
        for (long wait : waits) {
            advanceMillis(wait - 1);
            assertFalse(circuit.allowsCall(), "still open after " + (wait - 1) + " ms");
            advanceMillis(1);
            assertTrue(circuit.allowsCall(), "probes after " + wait + " ms");
            circuit.failure(down);
            assertEquals(Circuit.State.OPEN, circuit.state());
        }
        advanceMillis(30_000);
        assertTrue(circuit.allowsCall());
        circuit.success();
        for (int i = 0; i < 3; i++) {
            circuit.failure(down);
        }
        advanceMillis(1_000);
        assertTrue(circuit.allowsCall(), "after a recovery the wait starts over at one second");
    }

    @Test
    void openAtStartUpWaitsItsTimeThenProbes() {
        circuit.open(down);
        assertFalse(circuit.allowsCall());
        advanceMillis(1_000);
        assertTrue(circuit.allowsCall());
    }
}
