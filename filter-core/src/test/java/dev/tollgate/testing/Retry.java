package dev.tollgate.testing;

import java.time.Duration;
import java.util.function.Supplier;

/** Retries a call that may fail for a while (a client meeting a dead node after a failover), bounded in time. */
public final class Retry {

    private Retry() {
    }

    /** The first result of {@code call} that does not throw; fails with the last exception after {@code timeout}. */
    public static <T> T until(Duration timeout, Supplier<T> call) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int attempts = 0;
        while (true) {
            attempts++;
            try {
                return call.get();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("still failing after " + timeout.toMillis() + " ms and " + attempts + " attempts", e);
                }
            }
            try {
                Thread.sleep(100); // waiting for another process to recover, not timing a test
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }
}
