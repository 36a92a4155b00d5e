package dev.tollgate;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The concurrency slots an admitted request holds ({@code tollgate.policy.<name>.concurrency}),
 * to give back when its response has completed. An adapter calls {@link #release()} once the
 * response is done, on every path (normal end, exception, async completion, timeout, error);
 * only the first call gives the slots back, so calling it from several of those paths is safe.
 * A permit never released frees its slots when their lease expires.
 *
 * <p>Thread-safe.
 */
public final class Permit {

    /** The permit of a request that holds no slot: releasing it does nothing. */
    public static final Permit NONE = new Permit(null);

    private final AtomicReference<Runnable> release;

    private Permit(Runnable release) {
        this.release = new AtomicReference<>(release);
    }

    /**
     * A permit that runs {@code release} at its first {@link #release()}. For the engine; an
     * adapter only releases.
     */
    public static Permit releasing(Runnable release) {
        return new Permit(release);
    }

    /**
     * Gives the slots back, the first time only; never throws (a store that cannot be reached
     * leaves the slots to expire with their lease).
     *
     * @return whether this call gave them back (false: none held, or given back already)
     */
    public boolean release() {
        Runnable r = release.getAndSet(null);
        if (r == null) {
            return false;
        }
        try {
            r.run();
        } catch (RuntimeException e) {
            java.util.logging.Logger.getLogger("dev.tollgate.redis").log(java.util.logging.Level.FINE,
                    "slots not given back; they expire with their lease", e);
        }
        return true;
    }

    /** Whether slots are still held by this permit. */
    public boolean held() {
        return release.get() != null;
    }

    @Override
    public String toString() {
        return held() ? "Permit[held]" : "Permit[none]";
    }
}
