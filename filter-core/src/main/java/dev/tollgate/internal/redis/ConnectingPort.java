package dev.tollgate.internal.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A {@link RedisPort} whose underlying port is made on first use, and made again by a later call
 * for as long as it could not be. Jedis' Cluster and Sentinel clients ask Redis for the topology
 * while they are built, and throw if nobody answers; a limiter must start without Redis (its
 * failure mode applies) and use Redis once it appears, without a restart.
 *
 * <p>A port just made is asked the server's version first ({@link RedisVersion#require}); one too
 * old for the scripts is closed and counts as a failed attempt, logged once per version found
 * ({@code TOLLGATE-023}), so an in-place upgrade is picked up by a later attempt.
 *
 * <p>The first attempt runs in the caller's thread: that is start-up, which loads the script, and
 * nothing waits on a request's budget then. A later attempt (the circuit's probe, while Redis was
 * away) runs on a thread of its own that ends with the attempt, one attempt at a time; the caller
 * waits for it at most {@code waitForAttempt} (a quarter of the time budget: the share a call has
 * to connect), so no call waits for Redis longer than its budget. An attempt that takes longer
 * fails that call and serves a later one. {@link #close()} waits for an attempt in flight (at most
 * {@code attemptBound}) and closes what it made: no thread outlives the port.
 *
 * <p>Thread-safe.
 */
public final class ConnectingPort implements RedisPort {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.redis");
    /** The key whose server is asked its version (any server, in a cluster: they run one version). */
    static final String VERSION_KEY = "tollgate";

    private final Supplier<RedisPort> connect;
    private final Executor attempts;
    private final long waitNanos;
    private final long attemptBoundNanos;
    private final String description;
    private final ToIntFunction<String> slots;

    private volatile RedisPort port;
    /** The attempt in flight, or {@code null}; guarded by {@code this}. */
    private FutureTask<RedisPort> attempt;
    /** Guarded by {@code this}. */
    private boolean tried;
    /** Guarded by {@code this}. */
    private boolean closed;
    /** The last too-old version logged, so that one is logged once, not at every probe. */
    private volatile String loggedVersion;

    /**
     * @param connect        makes the underlying port; may throw when Redis does not answer
     * @param attempts       runs an attempt after the first (a new thread, in production)
     * @param waitForAttempt the longest a call waits for an attempt run by {@code attempts}
     * @param attemptBound   the longest an attempt can take ({@link #close()} waits for it at most that)
     * @param description    the server, for logs (no password)
     * @param slots          the Cluster hash slot of a key, or {@code null} outside a cluster
     */
    public ConnectingPort(Supplier<RedisPort> connect, Executor attempts, Duration waitForAttempt, Duration attemptBound,
                          String description, ToIntFunction<String> slots) {
        this.connect = connect;
        this.attempts = attempts;
        this.waitNanos = waitForAttempt.toNanos();
        this.attemptBoundNanos = attemptBound.toNanos();
        this.description = description;
        this.slots = slots;
    }

    /** An executor that runs each attempt on a new daemon thread, which ends with it. */
    public static Executor threadPerAttempt(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            t.start();
        };
    }

    /** The underlying port, made now if needed. */
    private RedisPort port() {
        RedisPort p = port;
        return p != null ? p : connect();
    }

    private RedisPort connect() {
        FutureTask<RedisPort> task;
        boolean inline = false;
        synchronized (this) {
            if (port != null) {
                return port;
            }
            if (closed) {
                throw new IllegalStateException(description + ": the port is closed");
            }
            if (attempt == null) {
                attempt = new FutureTask<>(this::attempt);
                inline = !tried;
                tried = true;
                if (!inline) {
                    attempts.execute(attempt);
                }
            }
            task = attempt;
        }
        if (inline) {
            task.run();
        }
        try {
            return task.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new NotConnectedException(description + ": still connecting after " + waitNanos / 1_000_000 + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new NotConnectedException(description + ": " + cause);
        } catch (CancellationException e) {
            throw new NotConnectedException(description + ": the attempt was cancelled");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NotConnectedException(description + ": interrupted while connecting");
        }
    }

    /** One attempt: make the port, check the server's version, publish it unless closed meanwhile. */
    private RedisPort attempt() {
        RedisPort made = null;
        try {
            made = connect.get();
            String version = made.serverVersion(VERSION_KEY);
            try {
                RedisVersion.require(version, description);
            } catch (RedisVersion.TooOldException e) {
                if (!version.equals(loggedVersion)) {
                    loggedVersion = version;
                    LOG.severe(e.getMessage());
                }
                throw e;
            }
            synchronized (this) {
                attempt = null;
                if (!closed) {
                    port = made;
                    return made;
                }
            }
            throw new IllegalStateException(description + ": the port was closed while it connected"); // closed below
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                attempt = null;
            }
            if (made != null && port != made) {
                closeQuietly(made);
            }
            throw e;
        }
    }

    private static void closeQuietly(RedisPort p) {
        try {
            p.close();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "closing a port that could not be used", e);
        }
    }

    /** The underlying port could not be made (yet). */
    public static final class NotConnectedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotConnectedException(String message) {
            super(message, null, false, false);
        }
    }

    @Override
    public long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args) {
        return port().evalsha(sha1, keys, args);
    }

    @Override
    public long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args) {
        return port().evalsha(sha1, script, keys, args); // the port's own NOSCRIPT handling, within one budget
    }

    @Override
    public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
        return port().eval(script, keys, args);
    }

    @Override
    public long deadline() {
        return port().deadline();
    }

    @Override
    public long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
        return port().evalsha(sha1, script, keys, args, deadline);
    }

    @Override
    public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
        return port().eval(script, keys, args, deadline);
    }

    @Override
    public String scriptLoad(String script, String routingKey) {
        return port().scriptLoad(script, routingKey);
    }

    @Override
    public String serverVersion(String routingKey) {
        return port().serverVersion(routingKey);
    }

    @Override
    public boolean clustered() {
        return slots != null;
    }

    @Override
    public int slot(String key) {
        return slots == null ? 0 : slots.applyAsInt(key);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        FutureTask<RedisPort> inFlight;
        synchronized (this) {
            closed = true;
            inFlight = attempt;
        }
        if (inFlight != null) {
            try {
                inFlight.get(attemptBoundNanos, TimeUnit.NANOSECONDS); // the attempt closes what it made
            } catch (ExecutionException | CancellationException | TimeoutException e) {
                // nothing to close: it failed, or it closes its port itself when it ends
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RedisPort p = port;
        if (p != null) {
            p.close();
        }
    }
}
