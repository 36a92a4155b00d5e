package dev.tollgate;

/** Whether a policy answers 429 or only observes. */
public enum Mode {
    /** Denied requests get 429 and never reach the application. */
    ENFORCE,
    /**
     * The decision is computed, logged and counted, and the request goes through. A shadow
     * policy takes its tokens only when the request is let through and its own limits admit it,
     * as if it were enforcing on its own; it never blocks or changes an enforcing policy.
     */
    SHADOW
}
