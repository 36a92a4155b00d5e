package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tollgate.CircuitState;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Examples of the circuit's rules; {@link CircuitPropertyTest} holds them over random interleavings. */
class CircuitTest {

    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Circuit circuit = new Circuit(3, Duration.ofSeconds(1), nanos::get, "redis://test");
    final RuntimeException down = new IllegalStateException("connection refused");

    void advanceMillis(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
    }

    void fail() {
        try (Circuit.Call c = circuit.tryCall()) {
            c.failed(down);
        }
    }

    void succeed() {
        try (Circuit.Call c = circuit.tryCall()) {
            c.succeeded();
        }
    }

    @Test
    void opensAfterConsecutiveFailuresOnly() {
        fail();
        fail();
        succeed();
        fail();
        fail();
        assertEquals(CircuitState.CLOSED, circuit.state(), "a success in between resets the count");
        fail();
        assertEquals(CircuitState.OPEN, circuit.state());
        assertNull(circuit.tryCall(), "an open circuit calls nobody");
    }

    @Test
    void oneRequestProbesAfterTheOpenTimeAndASuccessCloses() {
        for (int i = 0; i < 3; i++) {
            fail();
        }
        advanceMillis(999);
        assertNull(circuit.tryCall());
        advanceMillis(1);
        Circuit.Call probe = circuit.tryCall();
        assertNotNull(probe, "the first request after a second probes");
        assertEquals(CircuitState.HALF_OPEN, circuit.state());
        assertNull(circuit.tryCall(), "only one probe at a time");
        probe.succeeded();
        probe.close();
        assertEquals(CircuitState.CLOSED, circuit.state());
        assertNotNull(circuit.tryCall());
    }

    @Test
    void aFailedProbeWaitsTheSameTimeAgainSoRecoveryIsNeverLate() {
        for (int i = 0; i < 3; i++) {
            fail();
        }
        for (int probe = 0; probe < 20; probe++) {
            advanceMillis(999);
            assertNull(circuit.tryCall(), "still open");
            advanceMillis(1);
            fail(); // a probe every second, however long Redis has been down
            assertEquals(CircuitState.OPEN, circuit.state());
        }
        advanceMillis(1_000);
        succeed();
        assertEquals(CircuitState.CLOSED, circuit.state());
        assertEquals(21_000, circuit.downNanos() / 1_000_000, "the outage lasted 21 s");
    }

    @Test
    void aProbeThatEndsWithoutAVerdictLetsTheNextRequestProbeAtOnce() {
        circuit.open(down);
        advanceMillis(1_000);
        try (Circuit.Call busy = circuit.tryCall()) {
            assertNotNull(busy);
            // the pool was busy, or an Error was thrown: no verdict on Redis
        }
        assertEquals(CircuitState.OPEN, circuit.state());
        Circuit.Call next = circuit.tryCall();
        assertNotNull(next, "the next request probes, without waiting another open period");
        next.succeeded();
        assertEquals(CircuitState.CLOSED, circuit.state());
    }

    @Test
    void aProbeNeverClosedCountsAsLostAfterOneOpenPeriod() {
        circuit.open(down);
        advanceMillis(1_000);
        Circuit.Call lost = circuit.tryCall(); // its thread never comes back
        assertNotNull(lost);
        advanceMillis(999);
        assertNull(circuit.tryCall(), "one probe at a time while it may still answer");
        advanceMillis(1);
        Circuit.Call next = circuit.tryCall();
        assertNotNull(next, "after an open period the lost probe no longer holds the circuit");
        lost.failed(down);
        assertEquals(CircuitState.HALF_OPEN, circuit.state(), "the lost probe's late verdict changes nothing");
        next.succeeded();
        assertEquals(CircuitState.CLOSED, circuit.state());
    }

    @Test
    void aCallAllowedWhileClosedThatFailsLateDoesNotReopenTheCircuit() {
        Circuit.Call slow = circuit.tryCall();
        for (int i = 0; i < 3; i++) {
            fail();
        }
        advanceMillis(1_000);
        Circuit.Call probe = circuit.tryCall();
        slow.failed(down);
        assertEquals(CircuitState.HALF_OPEN, circuit.state(), "the probe is still the one that decides");
        assertNull(circuit.tryCall(), "and still the only one");
        probe.succeeded();
        assertEquals(CircuitState.CLOSED, circuit.state());
    }

    @Test
    void openAtStartUpWaitsItsTimeThenProbes() {
        circuit.open(down);
        assertNull(circuit.tryCall());
        advanceMillis(1_000);
        assertNotNull(circuit.tryCall());
    }
}
