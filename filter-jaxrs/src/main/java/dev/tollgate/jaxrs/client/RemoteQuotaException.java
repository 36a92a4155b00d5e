package dev.tollgate.jaxrs.client;

import jakarta.ws.rs.ProcessingException;
import java.io.Serial;
import java.time.Duration;

/**
 * An outbound call was not made: its token would come later than the policy's
 * {@code max-wait} allows (the remote's quota is spent, or the remote paused every node). Thrown
 * by the request filter before anything is sent; a JAX-RS runtime throws it from
 * {@code invoke()}/{@code get()}, or as the cause of its own {@link ProcessingException}
 * (Jersey wraps it; see {@link #of(Throwable)}).
 */
public final class RemoteQuotaException extends ProcessingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String policy;
    private final String remote;
    private final Duration retryAfter;
    private final Duration waited;

    RemoteQuotaException(String policy, String remote, Duration retryAfter, Duration waited) {
        super("outbound call to '" + remote + "' not made: policy '" + policy + "' has no token for "
                + retryAfter.toMillis() + " ms, beyond its max-wait (waited " + waited.toMillis() + " ms)");
        this.policy = policy;
        this.remote = remote;
        this.retryAfter = retryAfter;
        this.waited = waited;
    }

    RemoteQuotaException(String policy, String remote, Duration waited, InterruptedException cause) {
        super("outbound call to '" + remote + "' not made: interrupted while waiting for a token of policy '"
                + policy + "'", cause);
        this.policy = policy;
        this.remote = remote;
        this.retryAfter = Duration.ZERO;
        this.waited = waited;
    }

    /** The policy that limits the calls. */
    public String policy() {
        return policy;
    }

    /** The remote's name (its bucket's client). */
    public String remote() {
        return remote;
    }

    /** How long until a call could pass, as the store said when this call gave up ({@code 0} when interrupted). */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** How long this call waited before it gave up. */
    public Duration waited() {
        return waited;
    }

    /** This exception in {@code thrown} or its causes, or {@code null}: what a caller catches a runtime's wrapper with. */
    public static RemoteQuotaException of(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof RemoteQuotaException q) {
                return q;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }
}
