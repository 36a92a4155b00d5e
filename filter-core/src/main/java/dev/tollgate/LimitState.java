package dev.tollgate;

/**
 * Where one limit stood for one client after a decision.
 *
 * <p>All times are microseconds from the moment of the decision, measured on the store's clock
 * (Redis {@code TIME} for the Redis store). They are accurate only at that moment.
 *
 * @param limit            the limit
 * @param remaining        whole tokens left after this request (or, when it was refused, before it)
 * @param nextMicros       time until one more whole token is available, 0 when the bucket is full
 * @param resetMicros      time until the bucket is full again
 * @param retryAfterMicros 0 when this limit alone admits the request; else how long until it would
 */
public record LimitState(Limit limit, long remaining, long nextMicros, long resetMicros, long retryAfterMicros) {

    /** Whether this limit, on its own, admits the request. */
    public boolean admits() {
        return retryAfterMicros == 0;
    }
}
