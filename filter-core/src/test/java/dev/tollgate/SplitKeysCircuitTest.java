package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.redis.RedisPort;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A request whose keys a slot migration kept apart for longer than its budget, even one by one
 * ({@link RedisPort.SplitKeysException} out of the store), is decided by the failure mode, but
 * Redis answered, and healthily: the circuit does not count it, nor does the busy report. The
 * same number of real failures opens the circuit (what the test would see if it were counted).
 */
class SplitKeysCircuitTest {

    /** Ten store calls that throw {@code failure}, then one that answers: where each is decided from. */
    private static List<Decision.Source> sources(Supplier<RuntimeException> failure, long[] failures, long[] busy) {
        ManualClock clock = new ManualClock();
        FailingStore redis = new FailingStore(new LocalStore(1_000, clock::nowMicros));
        redis.failsWith(failure);
        Map<String, String> settings = new HashMap<>(Map.of("tollgate.metrics", "none", "tollgate.jmx", "false",
                "tollgate.policy.default.limits", "1000/s", "tollgate.deny-cache", "false",
                "tollgate.redis.circuit.failures", "3"));
        TollgateConfig config = TestConfigs.withProviders(settings);
        try (RateLimiter rl = new RateLimiter(config, redis, new LocalStore(1_000, clock::nowMicros),
                () -> clock.nowMicros() * 1_000L, null, "split-keys", null)) {
            java.util.ArrayList<Decision.Source> out = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                out.add(rl.check(TestRequest.get("/").from("10.0.0." + i)).source());
            }
            redis.answers();
            out.add(rl.check(TestRequest.get("/").from("10.0.1.1")).source());
            failures[0] = rl.redisFailures();
            busy[0] = rl.redisBusy();
            return out;
        }
    }

    @Test
    void keysKeptApartPastTheBudgetGoToTheFailureModeWithoutOpeningTheCircuit() {
        long[] failures = {-1};
        long[] busy = {-1};
        List<Decision.Source> s = sources(() -> new RedisPort.SplitKeysException(null, 0), failures, busy);
        assertEquals(List.of(Decision.Source.LOCAL), s.subList(0, 10).stream().distinct().toList(), "failure mode (local)");
        assertEquals(Decision.Source.REDIS, s.get(10), "the circuit stayed closed: the next request asks Redis");
        assertEquals(0, failures[0], "not a Redis failure");
        assertEquals(0, busy[0], "nor a busy pool");
    }

    @Test
    void asManyRealFailuresOpenTheCircuit() {
        long[] failures = {-1};
        long[] busy = {-1};
        List<Decision.Source> s = sources(() -> new IllegalStateException("connection reset"), failures, busy);
        assertEquals(3, failures[0], "the first three counted, then the circuit opened (the clock stands still: no probe): " + s);
        assertEquals(Decision.Source.LOCAL, s.get(10), "the circuit is open: the next request does not ask Redis");
    }
}
