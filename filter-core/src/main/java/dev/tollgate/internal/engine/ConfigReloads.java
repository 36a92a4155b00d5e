package dev.tollgate.internal.engine;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.config.StoreSettings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * A limiter's configuration changes: reads it again, refuses a new one that the engine would
 * refuse at a start ({@link OpenChecks}) or that breaks what code outside the configuration
 * requires ({@link PolicyRequirement}), keeps the Redis settings of the
 * start, logs, and polls on a daemon thread when {@code tollgate.reload-interval} asks to.
 *
 * <p>Thread-safe; {@link #next} is called under the limiter's lock.
 */
public final class ConfigReloads implements AutoCloseable {

    private static final Logger CONFIG_LOG = Logger.getLogger("dev.tollgate.config");

    private final String name;
    private final Supplier<TollgateConfig> reloader;
    private final Runnable reload;
    private final Set<PolicyRequirement> requirements = ConcurrentHashMap.newKeySet();
    private ScheduledExecutorService polling;
    private Duration pollingEvery = Duration.ZERO;

    /**
     * @param reloader reads the configuration again, or {@code null} when it cannot change
     * @param reload   the limiter's reload, which asks {@link #next} and puts its answer in force
     */
    public ConfigReloads(String name, Supplier<TollgateConfig> reloader, Runnable reload) {
        this.name = name;
        this.reloader = reloader;
        this.reload = reload;
    }

    /**
     * Calls the limiter's reload every {@code every} on a daemon thread, unless there is nothing to
     * reload or it is 0; called again ({@link #next} does when a reload changes
     * {@code tollgate.reload-interval}), from then on at the new interval. A reload that throws is
     * dropped: {@link #next} logged why, the configuration in force stays, and the polling goes on.
     */
    public synchronized void poll(Duration every) {
        if (polling != null) {
            polling.shutdown(); // called from its own task after a reload changed the interval: that task ends as it is
            polling = null;
        }
        pollingEvery = Duration.ZERO;
        if (reloader == null || every.isZero()) {
            return;
        }
        polling = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tollgate-reload-" + name);
            t.setDaemon(true);
            return t;
        });
        Runnable quietly = () -> {
            try {
                reload.run();
            } catch (RuntimeException e) {
                // next() logged it; the configuration in force stays
            }
        };
        polling.scheduleWithFixedDelay(quietly, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        pollingEvery = every;
    }

    /**
     * Keeps a requirement for every later configuration.
     *
     * @throws ConfigException when {@code now} does not allow it (nothing is kept then)
     */
    public void require(PolicyRequirement r, TollgateConfig now) {
        List<String> problems = new ArrayList<>(0);
        r.check(now, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        requirements.add(r);
    }

    /**
     * The configuration to put in force instead of {@code now}, or {@code null} when it did not change.
     * When it brings another {@code tollgate.reload-interval}, the polling goes on at that one.
     *
     * @throws ConfigException when the new configuration is not valid (logged); {@code now} stays
     */
    public TollgateConfig next(TollgateConfig now) {
        if (reloader == null) {
            return null;
        }
        TollgateConfig next;
        try {
            next = reloader.get();
        } catch (ConfigException e) {
            refused(e);
            throw e;
        }
        if (next.fingerprint().equals(now.fingerprint())) {
            return null;
        }
        List<String> problems = OpenChecks.problems(next); // what the engine would refuse at a start
        for (PolicyRequirement r : requirements) {
            r.check(next, problems);
        }
        if (!problems.isEmpty()) {
            ConfigException e = new ConfigException(problems);
            refused(e);
            throw e;
        }
        List<String> atStart = new ArrayList<>(0);
        if (!Objects.equals(redisOf(next), redisOf(now))) {
            atStart.add("the Redis settings");
        }
        if (next.store().localMaxKeys() != now.store().localMaxKeys()) {
            atStart.add(dev.tollgate.config.Settings.LOCAL_MAX_KEYS.name());
        }
        if (!atStart.isEmpty()) {
            // said, and kept as they were: the configuration in force never claims what is not so (issue 21)
            CONFIG_LOG.warning(() -> Messages.reloadedButAtStart(name, String.join(" and ", atStart)));
            next = next.withStartOnly(now);
        }
        TollgateConfig applied = next;
        CONFIG_LOG.info(() -> Messages.reloaded(name, ConfigDescription.of(applied)));
        if (!next.runtime().reloadInterval().equals(now.runtime().reloadInterval())) {
            poll(next.runtime().reloadInterval()); // its first reload waits for the limiter's lock, held while next is put in force
        }
        return next;
    }

    private void refused(ConfigException e) {
        CONFIG_LOG.severe(() -> Messages.reloadRefused(name, e.getMessage()));
    }

    /** How often the configuration is read again now; zero: never. */
    public synchronized Duration pollingEvery() {
        return pollingEvery;
    }

    @Override
    public synchronized void close() {
        if (polling != null) {
            polling.shutdownNow();
        }
    }

    /** The Redis settings of {@code c}'s store, or {@code null} for the in-memory kind: only to compare two. */
    private static RedisSettings redisOf(TollgateConfig c) {
        return c.store() instanceof StoreSettings.OnRedis r ? r.redis() : null;
    }
}
