package dev.tollgate.config;

/** What Tollgate does while Redis does not answer in time. */
public enum FailureMode {
    /** Decide with this node's in-memory buckets until Redis answers again. */
    LOCAL,
    /** Let every request through (no limit) until Redis answers again. */
    OPEN,
    /** Refuse every request covered by a policy with 503 until Redis answers again. */
    CLOSED
}
