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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /**
     * Issue 28, item 2: boundaries that do not hold Redis' time (a node's clock off by more than
     * a window) are refused: the script takes and writes nothing and answers {@code -1} and its
     * time, for the store to ask again around it. Before the fix it counted in the nearest window:
     * for a node three hours behind, one that had ended, whose count it wrote with a 1 ms expiry.
     */
    @Test
    void boundariesThatDoNotHoldRedisTimeAreRefusedAndNothingIsWritten(RedisEndpoint redis) {
        try (RedisPort port = JedisPort.standalone(RedisStoreIT.settings(redis))) {
            at("2026-06-10T08:30:00Z");
            long redisNow = clock.nowMicros();
            String k = key("refused");
            BucketRequest r = calendar(k, quota("3/hour calendar", "UTC"), 1);
            long hours3 = micros(Duration.ofHours(3));
            assertArrayEquals(new long[] {-1, redisNow}, call(port, r, redisNow - hours3, redisNow), "a node 3 h behind");
            assertArrayEquals(new long[] {-1, redisNow}, call(port, r, redisNow + hours3, redisNow), "a node 3 h ahead");
            assertEquals(null, redis.command("GET", k), "nothing written");
            BucketRequest two = calendar(key("refused-two"), quota("3/hour calendar", "UTC"), 1);
            List<byte[]> args = new ArrayList<>();
            args.add(Long.toString(redisNow).getBytes(StandardCharsets.US_ASCII));
            args.add(new byte[0]);
            for (String a : RedisStore.bucketArguments(two, redisNow)) { // the first key's windows hold now
                args.add(a.getBytes(StandardCharsets.US_ASCII));
            }
            for (String a : RedisStore.bucketArguments(r, redisNow - hours3)) { // the second's do not
                args.add(a.getBytes(StandardCharsets.US_ASCII));
            }
            assertArrayEquals(new long[] {-1, redisNow}, port.evalsha(RedisStore.SHA1.getBytes(StandardCharsets.US_ASCII),
                    RedisStore.SCRIPT.getBytes(StandardCharsets.UTF_8), List.of(two.key().getBytes(StandardCharsets.UTF_8),
                            k.getBytes(StandardCharsets.UTF_8)), args), "one key of two: the call is refused whole");
            assertEquals(null, redis.command("GET", two.key()), "and the first key took nothing");
        }
    }

    /** A store whose script runs on the test's clock (Redis' time) on a node whose own clock is {@code offset} from it. */
    private RedisStore skewed(RedisEndpoint redis, Duration offset) {
        RedisStore s = new RedisStore(JedisPort.standalone(RedisStoreIT.settings(redis)), clock::nowMicros,
                () -> clock.nowMicros() + micros(offset));
        s.load("any");
        return s;
    }

    /**
     * Issue 28, item 2: a node whose clock is hours behind (or ahead) counts in Redis' window: it
     * gets no more than the quota, and its refusal's wait is until Redis' window ends. Before the
     * fix the node three hours behind was admitted ten times of ten (its windows had all ended,
     * and each count was written with a 1 ms expiry), and the node three hours ahead counted in a
     * window that had not begun, and was told to wait until that window's end.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-PT3H", "-PT1H45M", "PT3H", "PT26H"})
    void aNodeWhoseClockIsHoursOffGetsNoMoreThanTheQuota(String offset, RedisEndpoint redis) {
        try (RedisStore node = skewed(redis, Duration.parse(offset))) {
            at("2026-06-10T08:30:00Z");
            String k = key("off-" + offset);
            StringBuilder seen = new StringBuilder();
            long[] last = null;
            for (int i = 0; i < 10; i++) {
                last = Replies.flat(node.acquire(List.of(calendar(k, quota("3/hour calendar", "UTC"), 1))));
                seen.append(last[3] == 0 ? 'A' : '.');
                clock.advance(Duration.ofMinutes(1));
            }
            assertEquals("AAA.......", seen.toString(), "a node " + offset + " off Redis' time, 3/hour calendar");
            assertArrayEquals(new long[] {0, micros(Duration.ofMinutes(21)), micros(Duration.ofMinutes(21)),
                    micros(Duration.ofMinutes(21))}, last, "refused until 09:00 in Redis' time (at 08:39)");
            String[] state = redis.command("GET", k).split(":");
            assertEquals(List.of(Long.toString(clock.nowMicros() - micros(Duration.ofMinutes(40))), "3"),
                    List.of(state[0], state[1]), "counted in Redis' 08:00 hour");
        }
    }

    /**
     * Issue 28, item 2, where clocks change: a node hours behind still counts in the window of
     * Redis' time as the zone's rules cut it, the hour windows cut short at a change of half an hour
     * (Lord Howe) or at a quarter to (Chatham), and a day of 23 hours (Berlin).
     */
    @Test
    void aNodeHoursBehindCountsInTheWindowsAClockChangeCuts(RedisEndpoint redis) {
        try (RedisStore node = skewed(redis, Duration.ofHours(-3))) {
            at("2026-09-27T03:50:00+13:45[Pacific/Chatham]"); // the node: 23:50 +12:45 the day before, before the change
            BucketRequest chatham = calendar(key("skew-chatham"), quota("1/hour calendar", "Pacific/Chatham"), 1);
            assertArrayEquals(new long[] {0, micros(Duration.ofMinutes(10)), micros(Duration.ofMinutes(10)), 0},
                    Replies.flat(node.acquire(List.of(chatham))), "the 03:00 hour since the change, until 04:00 +13:45");
            assertEquals(micros(Duration.ofMinutes(10)), Replies.flat(node.acquire(List.of(chatham)))[3]);
            at("2026-04-05T01:45:00+10:30[Australia/Lord_Howe]"); // run twice; the node: 23:15 +11:00 the day before
            BucketRequest howe = calendar(key("skew-lord-howe"), quota("1/hour calendar", "Australia/Lord_Howe"), 1);
            assertArrayEquals(new long[] {0, micros(Duration.ofMinutes(15)), micros(Duration.ofMinutes(15)), 0},
                    Replies.flat(node.acquire(List.of(howe))), "a window of its own since 01:30 +10:30, until 02:00 +10:30");
            assertEquals(micros(Duration.ofMinutes(15)), Replies.flat(node.acquire(List.of(howe)))[3]);
            at("2026-03-29T01:00:00+01:00[Europe/Berlin]"); // the node: 22:00 the day before (within a window)
            BucketRequest berlin = calendar(key("skew-berlin"), quota("1/day calendar", "Europe/Berlin"), 1);
            assertEquals(0, Replies.flat(node.acquire(List.of(berlin)))[3]);
            assertEquals(micros(Duration.ofHours(22)), Replies.flat(node.acquire(List.of(berlin)))[3],
                    "refused until midnight in Berlin: 22 hours on the day of 23");
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
