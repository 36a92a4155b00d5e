package dev.tollgate.internal;

import dev.tollgate.Decision;
import dev.tollgate.PolicyResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs the first refusal of a client by a policy, and then nothing for that client and policy
 * until its refusal window (the retry-after of that refusal) has passed. One line per client per
 * window, not one per request; bounded in memory.
 *
 * <p>Thread-safe.
 */
public final class DenialLog {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.decision");
    private static final int MAX = 10_000;

    private final Map<String, Long> quietUntilNanos = new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX;
        }
    };

    public void record(Decision decision) {
        if (!LOG.isLoggable(Level.INFO)) {
            return;
        }
        for (PolicyResult r : decision.results()) {
            if (!r.denied()) {
                continue;
            }
            boolean shadow = r.policy().mode() == dev.tollgate.Mode.SHADOW;
            if (first(r)) {
                String id = shadow ? Messages.SHADOW_DENIED : Messages.DENIED;
                LOG.info(() -> id + ": policy '" + r.policy().name() + "' " + (shadow ? "would refuse" : "refuses")
                        + " client " + r.clientKey() + " for " + HttpContract.retryAfterSeconds(r.retryAfterMicros())
                        + " s (decided by " + decision.source().name().toLowerCase(java.util.Locale.ROOT)
                        + " store); further refusals of this client in that time are not logged");
            }
        }
    }

    private boolean first(PolicyResult r) {
        long now = System.nanoTime();
        String k = r.policy().name() + '\u0000' + r.clientKey();
        synchronized (quietUntilNanos) {
            Long until = quietUntilNanos.get(k);
            if (until != null && now - until < 0) {
                return false;
            }
            quietUntilNanos.put(k, now + r.retryAfterMicros() * 1000L);
            return true;
        }
    }
}
