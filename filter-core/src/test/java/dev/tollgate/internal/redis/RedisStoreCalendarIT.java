package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.bucket.CalendarStoreContract;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.WithRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The calendar contract against a real Redis, plus what only Redis does: the script counts in
 * the window that holds its own time whatever the node's clock says, and the key expires at the
 * window's end.
 */
@WithRedis
class RedisStoreCalendarIT extends CalendarStoreContract {

    @Override
    protected BucketStore store(ManualClock clock) {
        RedisStore s = new RedisStore(JedisPort.standalone(RedisStoreIT.settings(TestRedis.shared())), clock::nowMicros);
        s.load("any");
        return s;
    }

    /** One call whose boundaries come from a node clock at {@code nodeMicros} and whose time is {@code redisMicros}. */
    private static long[] call(RedisPort port, BucketRequest r, long nodeMicros, long redisMicros) {
        List<byte[]> args = new ArrayList<>();
        args.add(Long.toString(redisMicros).getBytes(StandardCharsets.US_ASCII));
        args.add(new byte[0]);
        for (String a : RedisStore.bucketArguments(r, nodeMicros)) {
            args.add(a.getBytes(StandardCharsets.US_ASCII));
        }
        return port.evalsha(RedisStore.SHA1.getBytes(StandardCharsets.US_ASCII),
                RedisStore.SCRIPT.getBytes(StandardCharsets.UTF_8), List.of(r.key().getBytes(StandardCharsets.UTF_8)), args);
    }

    @Test
    void aNodeClockOffByLessThanAWindowCountsInRedisWindow(RedisEndpoint redis) {
        try (RedisPort port = JedisPort.standalone(RedisStoreIT.settings(redis))) {
            at("2026-06-10T08:30:00Z");
            long redisNow = clock.nowMicros();
            BucketRequest r = calendar(key("skew"), quota("3/hour calendar", "UTC"), 1);
            long minutes50 = micros(Duration.ofMinutes(50));
            long[] behind = call(port, r, redisNow - minutes50, redisNow);
            long[] ahead = call(port, r, redisNow + minutes50, redisNow);
            long[] exact = call(port, r, redisNow, redisNow);
            assertEquals(2, behind[0]);
            assertEquals(1, ahead[0], "a node 50 min ahead (already at 09:20) still counts in Redis' 08:00 hour");
            assertArrayEquals(new long[] {0, micros(Duration.ofMinutes(30)), micros(Duration.ofMinutes(30)), 0, redisNow}, exact);
        }
    }

    @Test
    void theKeyExpiresAtTheEndOfItsWindowInRedisTime(RedisEndpoint redis) {
        try (RedisStore real = new RedisStore(JedisPort.standalone(RedisStoreIT.settings(redis)))) {
            String k = key("ttl");
            long[] reply = Replies.flat(real.acquire(List.of(calendar(k, quota("5/hour calendar", "UTC"), 1))));
            assertEquals(4, reply[0]);
            long pttl = Long.parseLong(redis.command("PTTL", k));
            long untilHourMillis = reply[2] / 1000;
            assertTrue(Math.abs(pttl - untilHourMillis) <= 50, "PTTL " + pttl + " ms, window ends in " + untilHourMillis + " ms");
            String stored = redis.command("GET", k);
            String[] state = stored.split(":");
            assertEquals(List.of("1", Long.toString(Long.parseLong(state[0]) + 3_600_000_000L)), List.of(state[1], state[2]),
                    "the window's start, its count and its end: " + stored);
        }
    }
}
