package dev.tollgate;

import dev.tollgate.config.ConfigException;
import dev.tollgate.internal.engine.ClientBuckets;
import dev.tollgate.internal.engine.RateLimiterMXBean;
import java.lang.management.ManagementFactory;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.ObjectName;

/** A limiter as JMX shows it ({@code dev.tollgate:type=RateLimiter,name=<name>}). Thread-safe. */
final class RateLimiterJmx implements RateLimiterMXBean {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private final RateLimiter limiter;

    private RateLimiterJmx(RateLimiter limiter) {
        this.limiter = limiter;
    }

    /** Registers the limiter's view; {@code null} when it is not registered (a name taken, no JMX). */
    static ObjectName register(RateLimiter limiter, String name) {
        try {
            ObjectName on = new ObjectName("dev.tollgate:type=RateLimiter,name=" + ObjectName.quote(name));
            var server = ManagementFactory.getPlatformMBeanServer();
            if (!server.isRegistered(on)) {
                server.registerMBean(new RateLimiterJmx(limiter), on);
                return on;
            }
        } catch (Exception | LinkageError e) {
            LOG.log(Level.FINE, "not registered with JMX", e);
        }
        return null;
    }

    /** Unregisters what {@link #register} registered; nothing for {@code null}. */
    static void unregister(ObjectName registered) {
        if (registered != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(registered);
            } catch (Exception e) {
                LOG.log(Level.FINE, "not unregistered from JMX", e);
            }
        }
    }

    @Override
    public String getCircuit() {
        return limiter.health().circuit();
    }

    @Override
    public boolean isReady() {
        return limiter.health().ready();
    }

    @Override
    public boolean isFallback() {
        return limiter.health().fallback();
    }

    @Override
    public long getRedisCalls() {
        return limiter.redisCalls();
    }

    @Override
    public long getRedisFailures() {
        return limiter.redisFailures();
    }

    @Override
    public String getLastFailure() {
        return limiter.health().lastFailure();
    }

    @Override
    public String getConfiguration() {
        return dev.tollgate.internal.engine.ConfigDescription.of(limiter.config());
    }

    @Override
    public String inspect(String policy, String client) {
        try {
            return ClientBuckets.inspect(limiter.config(), limiter.store(), policy, client);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return "not inspected: " + e.getMessage();
        } catch (RuntimeException e) {
            return "not inspected, the store did not answer: " + e;
        }
    }

    @Override
    public String reset(String policy, String client) {
        try {
            return ClientBuckets.reset(limiter.config(), limiter.store(), policy, client, who());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return "not reset: " + e.getMessage();
        } catch (RuntimeException e) {
            return "not reset, the store did not answer: " + e;
        }
    }

    /**
     * Who called: the principals of the JMX connection's subject (a JMX connector with
     * authentication puts them there), else {@code jmx} (a local console, no authentication).
     * The API that reads the caller's subject in Java 17 is deprecated for removal, with no
     * replacement before Java 18 ({@code Subject.current()}).
     */
    @SuppressWarnings("removal")
    static String who() {
        javax.security.auth.Subject s = javax.security.auth.Subject.getSubject(java.security.AccessController.getContext());
        if (s == null || s.getPrincipals().isEmpty()) {
            return "jmx";
        }
        return "jmx:" + s.getPrincipals().stream().map(java.security.Principal::getName).sorted()
                .collect(java.util.stream.Collectors.joining(","));
    }

    @Override
    public String reload() {
        try {
            return limiter.reload() ? "changed and in force" : "unchanged";
        } catch (ConfigException e) {
            return "refused, the previous configuration stays: " + e.getMessage();
        }
    }
}
