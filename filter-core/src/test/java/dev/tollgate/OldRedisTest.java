package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.redis.ConnectingPort;
import dev.tollgate.internal.redis.RedisPort;
import dev.tollgate.internal.redis.RedisStore;
import dev.tollgate.internal.redis.RedisVersion;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A Redis older than 6.0 (the scripts need effects replication, 5.0, and {@code KEEPTTL}, 6.0) is
 * a failure like an unreachable one: the limiter decides by its failure mode and never runs a
 * script there. The version check itself: {@code RedisVersionTest}, {@code ConnectingPortTest},
 * and the real server's version in {@code RedisVersionIT}.
 */
class OldRedisTest {

    /** A server that says it is Redis 5.0.14 and counts what it is asked to run. */
    static RedisPort redis5(AtomicInteger scripts) {
        return new RedisPort() {
            @Override
            public long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args) {
                scripts.incrementAndGet();
                throw new IllegalStateException("ran a script on Redis 5");
            }

            @Override
            public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
                return evalsha(script, keys, args);
            }

            @Override
            public String scriptLoad(String script, String routingKey) {
                scripts.incrementAndGet();
                return RedisStore.SHA1;
            }

            @Override
            public String serverVersion(String routingKey) {
                return "5.0.14";
            }

            @Override
            public String describe() {
                return "redis 5";
            }

            @Override
            public void close() {
            }
        };
    }

    @Test
    void eachFailureModeAppliesAndNoScriptRuns() {
        for (String mode : List.of("open", "closed", "local")) {
            AtomicInteger scripts = new AtomicInteger();
            ConnectingPort port = new ConnectingPort(() -> redis5(scripts), r -> { }, Duration.ofMillis(1), Duration.ofMillis(1),
                    "redis://old:6379", null);
            RedisStore store = new RedisStore(port);
            RedisVersion.TooOldException e = assertThrows(RedisVersion.TooOldException.class, () -> store.load("x"),
                    "start-up's script load meets the check");
            assertTrue(e.getMessage().contains("TOLLGATE-023: redis://old:6379 runs Redis 5.0.14; Tollgate needs 6.0.0"),
                    e.getMessage());
            TollgateConfig config = TestConfigs.of(
                    "tollgate.redis.uri", "redis://old:6379", "tollgate.redis.failure-mode", mode,
                    "tollgate.policy.default.limits", "1/h burst 1", "tollgate.metrics", "none", "tollgate.jmx", "false");
            ManualClock clock = new ManualClock();
            try (RateLimiter rl = new RateLimiter(config, store, new LocalStore(1000, clock::nowMicros), System::nanoTime)) {
                for (int i = 1; i <= 4; i++) {
                    Decision d = rl.check(TestRequest.get("/api"));
                    switch (mode) {
                        case "open":
                            assertEquals(Decision.Verdict.ALLOW, d.verdict(), mode + " " + i);
                            break;
                        case "closed":
                            assertEquals(Decision.Verdict.UNAVAILABLE, d.verdict(), mode + " " + i);
                            break;
                        default:
                            assertEquals(i == 1, d.allowed(), mode + " " + i);
                            assertEquals(Decision.Source.LOCAL, d.source(), mode + " " + i);
                    }
                }
            }
            assertEquals(0, scripts.get(), mode + ": no script ran on Redis 5");
        }
    }
}
