package dev.tollgate;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.redis.RedisPort;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * A request decided without Redis because this node's pool had no connection free in time is
 * never silent: TOLLGATE-024 reports the first at once, then at most once a minute with the count
 * since the report before, so every such request is in exactly one report up to the last one.
 * Against a reference model over random runs of busy, answered and idle steps on a controlled clock.
 */
class RedisBusyReportProperties {

    static final long MINUTE_MICROS = 60_000_000L;
    static final Pattern COUNT = Pattern.compile("TOLLGATE-024: (\\d+) requests? (?:was|were) decided without");

    /** One step: a request whose Redis call finds the pool busy, one that Redis answers, or time passing. */
    record Step(boolean busy, long advanceMicros) {
    }

    static Gen<List<Step>> runs() {
        Gen<Step> request = bools().map(b -> new Step(b, 0));
        Gen<Step> idle = longs(1, 3 * MINUTE_MICROS).map(us -> new Step(false, us));
        return lists(frequency(weight(6, request), weight(1, idle)), 0, 200);
    }

    @Test
    void everyRequestDecidedWithoutAFreeConnectionIsReportedAtMostOnceAMinute() {
        qt(300).forAll(runs()).checkAssert(this::everyRequestDecidedWithoutAFreeConnectionIsReportedAtMostOnceAMinute);
    }

    private void everyRequestDecidedWithoutAFreeConnectionIsReportedAtMostOnceAMinute(List<Step> run) {
        ManualClock clock = new ManualClock();
        FailingStore redis = new FailingStore(new LocalStore(1_000, clock::nowMicros));
        Map<String, String> settings = new HashMap<>(Map.of("tollgate.metrics", "none", "tollgate.jmx", "false",
                "tollgate.policy.default.limits", "1000/s", "tollgate.deny-cache", "false"));
        TollgateConfig config = TestConfigs.withProviders(settings);
        List<Long> reported = new ArrayList<>();
        Logger log = Logger.getLogger("dev.tollgate.redis");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                Matcher m = COUNT.matcher(String.valueOf(r.getMessage()));
                if (m.find()) {
                    assertEquals(Level.WARNING, r.getLevel());
                    reported.add(Long.parseLong(m.group(1)));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        boolean parent = log.getUseParentHandlers();
        log.setUseParentHandlers(false);
        try (RateLimiter rl = new RateLimiter(config, redis, new LocalStore(1_000, clock::nowMicros),
                () -> clock.nowMicros() * 1_000L, null, "busy-report", null)) {
            // the model: when the next report may come, and the busy requests not reported yet
            long nextReportMicros = clock.nowMicros();
            long unreported = 0;
            List<Long> expected = new ArrayList<>();
            for (Step s : run) {
                clock.advanceMicros(s.advanceMicros());
                if (s.advanceMicros() > 0) {
                    continue;
                }
                if (s.busy()) {
                    redis.failsWith(() -> new RedisPort.BusyException(null));
                } else {
                    redis.answers();
                }
                Decision d = rl.check(TestRequest.get("/").from("10.0.0." + (expected.size() % 200)));
                assertEquals(s.busy() ? Decision.Source.LOCAL : Decision.Source.REDIS, d.source(),
                        "a busy pool sends the request to the failure mode (local), else Redis decides");
                if (s.busy()) {
                    unreported++;
                    if (clock.nowMicros() >= nextReportMicros) {
                        expected.add(unreported);
                        unreported = 0;
                        nextReportMicros = clock.nowMicros() + MINUTE_MICROS;
                    }
                }
            }
            assertEquals(expected, reported);
            long busyTotal = run.stream().filter(s -> s.busy() && s.advanceMicros() == 0).count();
            assertEquals(busyTotal, reported.stream().mapToLong(Long::longValue).sum() + unreported,
                    "each busy request is in exactly one report, or after the last one");
            assertTrue(reported.size() <= 1 + clock.nowMicros() / MINUTE_MICROS, "at most one report a minute");
            assertEquals(busyTotal, rl.redisBusy());
        } finally {
            log.removeHandler(capture);
            log.setUseParentHandlers(parent);
        }
    }
}
