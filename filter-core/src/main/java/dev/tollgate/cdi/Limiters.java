package dev.tollgate.cdi;

import dev.tollgate.adapter.Integration;
import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.TollgateConfig;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The limiter the interceptor decides with, one per application. The rule: a limiter that a
 * Tollgate filter or JAX-RS feature of the same application made ({@link RateLimiter#live()}, the
 * limiters of this class loader) when one is open and declares the method's policies, so the
 * interceptor and the filters share one engine, deny cache and in-memory store; else one of its
 * own, made at the first call that finds none, from the server's configuration (MicroProfile
 * Config, else system properties and the environment), reloaded as the filters' are, and closed
 * when the application stops. Thread-safe.
 */
final class Limiters implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private final Supplier<TollgateConfig> configuration;
    private final String name;
    private RateLimiter own;
    private boolean closed;
    private boolean failed;

    /**
     * @param configuration reads the configuration (again, for reloads); throws {@link ConfigException}
     * @param name          the own limiter's name, for logs, metrics, JMX and health
     */
    Limiters(Supplier<TollgateConfig> configuration, String name) {
        this.configuration = configuration;
        this.name = name;
    }

    /** The limiter for a call of {@code method}, or {@code null} when none can be had (closed, or the start failed). */
    RateLimiter forCall(MethodLimit method) {
        RateLimiter mine = ownIfMade();
        for (RateLimiter l : RateLimiter.live()) {
            if (l != mine && method.decidableBy(l)) {
                return l;
            }
        }
        mine = own();
        return mine != null && method.decidableBy(mine) ? mine : null;
    }

    private synchronized RateLimiter ownIfMade() {
        return own;
    }

    private synchronized RateLimiter own() {
        if (own == null && !closed && !failed) {
            try {
                own = RateLimiter.create(configuration.get(), name, configuration);
            } catch (ConfigException | IllegalStateException e) {
                failed = true; // logged once; every call then gets the not-started answer
                LOG.severe(Integration.internalErrorMessage("the limiter of the CDI interceptor did not start; "
                        + "limited methods are refused with 503: " + e.getMessage()));
            }
        }
        return own;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (own != null) {
            own.close();
            own = null;
        }
    }
}
