package dev.tollgate;

/** How a policy counts. */
public enum Algorithm {
    /**
     * A token bucket per limit (kept as a theoretical arrival time): bursts up to the capacity,
     * then the rate. Constant memory per client. In any interval of length t a client gets at
     * most capacity + rate x t.
     */
    TOKEN_BUCKET,
    /**
     * A log of request times per client: at most N requests in any window of length W, exactly.
     * Costs memory per request in the window (at most N entries per client and policy), so
     * limits are restricted to {@value Algorithm#MAX_LOG_ENTRIES} per window.
     */
    SLIDING_LOG;

    /** The most requests a sliding-log limit may allow per window: the bound on stored entries. */
    public static final int MAX_LOG_ENTRIES = 10_000;
}
