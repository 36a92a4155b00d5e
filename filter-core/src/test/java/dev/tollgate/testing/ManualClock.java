package dev.tollgate.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock in microseconds that moves only when the test says so. */
public final class ManualClock {

    private final AtomicLong micros;

    /** Starts at a realistic epoch time, so arithmetic sees numbers of the real size. */
    public ManualClock() {
        this(1_790_000_000_000_000L);
    }

    public ManualClock(long startMicros) {
        this.micros = new AtomicLong(startMicros);
    }

    public long nowMicros() {
        return micros.get();
    }

    public void advanceMicros(long delta) {
        micros.addAndGet(delta);
    }

    public void advance(Duration d) {
        advanceMicros(d.toNanos() / 1000);
    }
}
