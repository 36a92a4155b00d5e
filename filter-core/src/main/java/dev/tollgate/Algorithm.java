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
    SLIDING_LOG,
    /**
     * Calendar quotas ({@code 1000/month calendar}): per limit, the start of the current window
     * and the count taken in it; the count starts at zero with each window. Constant memory per
     * client. The policy's limits say so: a policy whose limits are calendar quotas counts this way.
     */
    CALENDAR;

    /** The most requests a sliding-log limit may allow per window: the bound on stored entries. */
    public static final int MAX_LOG_ENTRIES = 10_000;
}
