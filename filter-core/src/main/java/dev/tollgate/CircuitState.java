package dev.tollgate;

/**
 * Where the circuit around Redis stands ({@link RateLimiter#circuitState()}): {@code CLOSED} while
 * Redis answers, {@code OPEN} while calls are skipped after failures, {@code HALF_OPEN} while one
 * trial call tests whether Redis is back.
 */
public enum CircuitState {
    CLOSED, OPEN, HALF_OPEN
}
