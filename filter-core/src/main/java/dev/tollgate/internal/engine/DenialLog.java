package dev.tollgate.internal.engine;

import dev.tollgate.Decision;
import dev.tollgate.Mode;
import dev.tollgate.PolicyResult;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.http.HttpContract;
import dev.tollgate.internal.identity.ClientKeys;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs the first refusal of a client by a policy, and then nothing for that client and policy
 * until its refusal window (the retry-after of that refusal) has passed. One line per client per
 * window, not one per request; bounded in memory, and without a lock on the request path. Once
 * it holds {@value #MAX} clients it is swept for ended windows at most every 100 ms, by one
 * thread: a flood of refused clients cannot make every refusal walk the map.
 *
 * <p>Thread-safe.
 */
public final class DenialLog {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.decision");
    static final int MAX = 10_000;

    private final ConcurrentHashMap<String, Long> quietUntilNanos = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;
    private final AtomicLong nextSweep;

    public DenialLog() {
        this(System::nanoTime);
    }

    DenialLog(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.nextSweep = new AtomicLong(nanoTime.getAsLong());
    }

    /** @param clearClientKeys whether the line names the client by its whole key ({@link ClientKeys#shown}) */
    public void record(Decision decision, boolean clearClientKeys) {
        if (decision.verdict() == Decision.Verdict.ALLOW && !shadowDenied(decision)) {
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
                LOG.info(() -> Messages.denied(shadow, r.policy().name(),
                        ClientKeys.shown(r.clientKey(), clearClientKeys),
                        HttpContract.retryAfterSeconds(r.retryAfterMicros()), decision.source().name().toLowerCase(Locale.ROOT)));
            }
        }
    }

    /** Whether a shadow policy would have refused; a loop, not {@code shadowDenying()}'s list, as every allowed request asks. */
    private static boolean shadowDenied(Decision decision) {
        List<PolicyResult> results = decision.results();
        for (int i = 0; i < results.size(); i++) {
            PolicyResult r = results.get(i);
            if (r.policy().mode() == Mode.SHADOW && r.denied()) {
                return true;
            }
        }
        return false;
    }

    /** Whether this refusal opens a new window for its client and policy (and is to be logged). */
    boolean first(PolicyResult r) {
        long now = nanoTime.getAsLong();
        String k = r.policy().name() + '\u0000' + r.clientKey();
        Long until = quietUntilNanos.get(k);
        if (until != null && now - until < 0) {
            return false;
        }
        if (until == null && quietUntilNanos.size() >= MAX) {
            long due = nextSweep.get();
            if (now - due < 0 || !nextSweep.compareAndSet(due, now + DenyCache.SWEEP_EVERY_NANOS)) {
                return false; // a flood of refused clients: the metrics count them, the log stays readable
            }
            quietUntilNanos.values().removeIf(u -> now - u >= 0);
            if (quietUntilNanos.size() >= MAX) {
                return false;
            }
        }
        long next = now + r.retryAfterMicros() * 1000L;
        Long previous = until == null ? quietUntilNanos.putIfAbsent(k, next) : (quietUntilNanos.replace(k, until, next) ? null : until);
        return previous == null;
    }
}
