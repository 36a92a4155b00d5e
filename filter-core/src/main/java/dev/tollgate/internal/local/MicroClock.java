package dev.tollgate.internal.local;

/**
 * The in-memory store's clock, in microseconds. Tests pass their own; production uses
 * {@link #SYSTEM}, which never goes backwards.
 */
@FunctionalInterface
public interface MicroClock {

    long nowMicros();

    /**
     * Wall-clock microseconds at start-up, advanced by {@link System#nanoTime()}: monotonic, so
     * a clock step on the host neither refills nor drains the local buckets.
     */
    MicroClock SYSTEM = new MicroClock() {
        private final long originMicros = System.currentTimeMillis() * 1000L;
        private final long originNanos = System.nanoTime();

        @Override
        public long nowMicros() {
            return originMicros + (System.nanoTime() - originNanos) / 1000L;
        }
    };
}
