package dev.tollgate.faults;

import dev.tollgate.Decision;

/**
 * One request in the history: who sent it to which node under which policy, when it was invoked
 * and when its decision came back (µs since the run began), and the decision. A request that took
 * a concurrency slot also records when its release was invoked ({@code -1}: never, its node died).
 * Written by one workload thread, read by the checker after the run.
 */
final class Op {

    final int client;
    final int node;
    final String policy;
    final long invoke;
    long complete = -1;
    Decision.Verdict verdict;
    Decision.Source source;
    long retryAfterMicros;
    /** The node threw or was dead: no decision. */
    String error;
    long releaseInvoke = -1;
    boolean obeying;

    Op(int client, int node, String policy, long invoke) {
        this.client = client;
        this.node = node;
        this.policy = policy;
        this.invoke = invoke;
    }

    boolean admitted() {
        return error == null && verdict == Decision.Verdict.ALLOW;
    }

    /** Admitted by a store (Redis, this node's memory, a lease or the fallback), not by the failure mode stepping aside. */
    boolean counted() {
        return admitted() && source != Decision.Source.NONE;
    }

    @Override
    public String toString() {
        return String.format("%9.3f .. %9.3f s  client %2d node %d %-5s %s", invoke / 1e6, complete / 1e6, client, node, policy,
                error != null ? "error " + error : verdict + " by " + source
                        + (verdict == Decision.Verdict.DENY ? " retry " + retryAfterMicros + " µs" : "")
                        + (releaseInvoke >= 0 ? " released at " + String.format("%.3f s", releaseInvoke / 1e6) : ""));
    }
}
