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

    /**
     * Polls {@code problem} (null: done; otherwise what is still missing) every 50 ms until done or
     * {@code timeout}; then fails saying what it waited for, what was missing last, and
     * {@code context} (e.g. the tail of every process's log).
     */
    public static void await(String who, String what, Duration timeout, Supplier<String> problem, Supplier<String> context) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "not checked yet";
        while (true) {
            try {
                last = problem.get();
                if (last == null) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e.toString();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(who + ": timed out after " + timeout.toMillis() + " ms waiting for "
                        + what + "; last: " + last + context.get());
            }
            try {
                Thread.sleep(50); // polling other processes' state, not timing a test
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
