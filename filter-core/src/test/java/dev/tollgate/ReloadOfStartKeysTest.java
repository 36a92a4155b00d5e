package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A reload that changed only {@code tollgate.local.max-keys} or {@code tollgate.reload-interval}
 * logged {@code TOLLGATE-012} (changed, in force) though neither took effect (issue 21). Now the
 * interval a reload brings is the one the limiter polls at, and the size of the in-memory store,
 * fixed at start, is said to wait for the next start and kept in the configuration in force.
 */
class ReloadOfStartKeysTest {

    final Map<String, String> settings = new HashMap<>(Map.of("tollgate.metrics", "none", "tollgate.jmx", "false",
            "tollgate.policy.default.limits", "10/s", "tollgate.reload-interval", "0s"));

    TollgateConfig load() {
        return TestConfigs.of(settings);
    }

    @Test
    void aReloadIntervalThatAReloadBringsIsTheOneInForce() {
        try (RateLimiter rl = RateLimiter.create(load(), "reload-interval", this::load)) {
            assertEquals(Duration.ZERO, rl.reloadsEvery());
            settings.put("tollgate.reload-interval", "30s");
            assertTrue(rl.reload());
            assertEquals(Duration.ofSeconds(30), rl.reloadsEvery(), "polled from now on");
            settings.put("tollgate.reload-interval", "5s");
            assertTrue(rl.reload());
            assertEquals(Duration.ofSeconds(5), rl.reloadsEvery());
            settings.put("tollgate.reload-interval", "0s");
            assertTrue(rl.reload());
            assertEquals(Duration.ZERO, rl.reloadsEvery(), "and no more");
        }
    }

    @Test
    void aReloadOfTheLocalStoresSizeSaysItWaitsForTheNextStart() {
        List<String> warnings = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                warnings.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("dev.tollgate.config");
        log.addHandler(h);
        try (RateLimiter rl = RateLimiter.create(load(), "max-keys", this::load)) {
            int before = rl.config().store().localMaxKeys();
            settings.put("tollgate.local.max-keys", Integer.toString(before / 2));
            assertTrue(rl.reload());
            assertEquals(before, rl.config().store().localMaxKeys(), "the configuration in force says what is in force");
            assertTrue(warnings.stream().anyMatch(w -> w.startsWith("WARNING TOLLGATE-012") && w.contains("tollgate.local.max-keys")
                    && w.contains("next start")), warnings.toString());
        } finally {
            log.removeHandler(h);
        }
    }
}
