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
    void aFailedProbeWaitsTheSameTimeAgainSoRecoveryIsNeverLate() {
        for (int i = 0; i < 3; i++) {
            circuit.failure(down);
        }
        for (int probe = 0; probe < 20; probe++) {
            advanceMillis(999);
            assertFalse(circuit.allowsCall(), "still open");
            advanceMillis(1);
            assertTrue(circuit.allowsCall(), "a probe every second, however long Redis has been down");
            circuit.failure(down);
            assertEquals(Circuit.State.OPEN, circuit.state());
        }
        advanceMillis(1_000);
        assertTrue(circuit.allowsCall());
        circuit.success();
        assertEquals(Circuit.State.CLOSED, circuit.state());
        assertEquals(21_000, circuit.downNanos() / 1_000_000, "the outage lasted 21 s");
    }

    @Test
    void openAtStartUpWaitsItsTimeThenProbes() {
        circuit.open(down);
        assertFalse(circuit.allowsCall());
        advanceMillis(1_000);
        assertTrue(circuit.allowsCall());
    }
}
