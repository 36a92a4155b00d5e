package dev.tollgate.internal;

import dev.tollgate.Decision;
import dev.tollgate.Mode;
import dev.tollgate.PolicyResult;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs the first refusal of a client by a policy, and then nothing for that client and policy
 * until its refusal window (the retry-after of that refusal) has passed. One line per client per
 * window, not one per request; bounded in memory, and without a lock on the request path.
 *
 * <p>Thread-safe.
 */
public final class DenialLog {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.decision");
    private static final int MAX = 10_000;

    private final ConcurrentHashMap<String, Long> quietUntilNanos = new ConcurrentHashMap<>();

    public void record(Decision decision) {
        if (decision.verdict() == Decision.Verdict.ALLOW && decision.shadowDenying().isEmpty()) {
            return;
        }
        if (!LOG.isLoggable(Level.INFO)) {
            return;
        }
        for (PolicyResult r : decision.results()) {
            if (!r.denied()) {
                continue;
            }
            boolean shadow = r.policy().mode() == Mode.SHADOW;
            if (first(r)) {
                String id = shadow ? Messages.SHADOW_DENIED : Messages.DENIED;
                LOG.info(() -> id + ": policy '" + r.policy().name() + "' " + (shadow ? "would refuse" : "refuses")
                        + " client " + r.clientKey() + " for " + HttpContract.retryAfterSeconds(r.retryAfterMicros())
                        + " s (decided by " + decision.source().name().toLowerCase(Locale.ROOT)
                        + " store); further refusals of this client in that time are not logged");
            }
        }
    }

    private boolean first(PolicyResult r) {
        long now = System.nanoTime();
        String k = r.policy().name() + '\u0000' + r.clientKey();
        Long until = quietUntilNanos.get(k);
        if (until != null && now - until < 0) {
            return false;
        }
        if (quietUntilNanos.size() >= MAX) {
            quietUntilNanos.values().removeIf(u -> now - u >= 0);
            if (quietUntilNanos.size() >= MAX) {
                return false; // a flood of refused clients: the metrics count them, the log stays readable
            }
        }
        long next = now + r.retryAfterMicros() * 1000L;
        Long previous = until == null ? quietUntilNanos.putIfAbsent(k, next) : (quietUntilNanos.replace(k, until, next) ? null : until);
        return previous == null;
    }
}
