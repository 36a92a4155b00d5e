package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.bucket.BucketStoreContract;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.WithRedis;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bucket contract against a real Redis, plus what only Redis does: TIME, NOSCRIPT, expiry. */
@WithRedis
class RedisStoreIT extends BucketStoreContract {

    static RedisSettings settings(RedisEndpoint redis) {
        return RedisSettings.standalone(redis.host(), redis.port(), Duration.ofSeconds(2));
    }

    @Override
    protected BucketStore store(ManualClock clock) {
        RedisStore s = new RedisStore(JedisPort.standalone(settings(TestRedis.shared())), clock::nowMicros);
        s.load("any");
        return s;
    }

    @Override
    protected void writeUntagged(String key, long... tats) {
        StringBuilder state = new StringBuilder();
        for (long t : tats) {
            state.append(state.length() > 0 ? "," : "").append(t);
        }
        TestRedis.shared().command("SET", key, state.toString(), "PX", "600000");
    }

    @Test
    void withoutAnOverrideTheClockIsRedisTime(RedisEndpoint redis) {
        try (RedisStore real = new RedisStore(JedisPort.standalone(settings(redis)))) {
            String k = key("redis-time");
            long before = redisMicros(redis);
            long[] r = Replies.flat(real.acquire(List.of(BucketRequest.take(k, Limit.parse("1/min"), 1, true))));
            long after = redisMicros(redis);
            assertEquals(0, r[0]);
            long tat = Long.parseLong(redis.command("GET", k).replaceAll("~.*", ""));
            assertTrue(tat >= before + 60_000_000L && tat <= after + 60_000_000L,
                    "the stored arrival time is Redis TIME plus one minute: " + tat + " not in [" + before + ", " + after + "] + 60 s");
        }
    }

    @Test
    void aKeyExpiresWhenItsBucketIsFullAgain(RedisEndpoint redis) {
        try (RedisStore real = new RedisStore(JedisPort.standalone(settings(redis)))) {
            String k = key("expiry");
            Replies.flat(real.acquire(List.of(BucketRequest.take(k, Limit.parse("10/s burst 20"), 5, true)))); // full again in 500 ms
            long pttl = Long.parseLong(redis.command("PTTL", k));
            assertTrue(pttl > 400 && pttl <= 500, "PTTL " + pttl);
            List<Limit> two = Limit.parse("10/s burst 20; 100/day");
            Replies.flat(real.acquire(List.of(BucketRequest.take(k, two, 1, true))));
            Replies.flat(real.acquire(List.of(BucketRequest.take(k, two, 1, true))));
            pttl = Long.parseLong(redis.command("PTTL", k));
            // the day limit, new to the key, read the 500 ms the key owed, then took two tokens of 864 s
            assertTrue(pttl > 1_700_000 && pttl <= 1_728_500, "the slower limit keeps it longer: PTTL " + pttl);
        }
    }

    @Test
    void aScriptLostByRedisIsSentAgainWithoutAnError(RedisEndpoint redis) {
        String k = key("noscript");
        assertTrue(admitted(take(k, "2/min")));
        assertEquals("OK", redis.command("SCRIPT", "FLUSH"));
        assertEquals("0", redis.command("SCRIPT", "EXISTS", RedisStore.SHA1));
        long[] r = take(k, "2/min");
        assertTrue(admitted(r));
        assertEquals(0, r[0], "the state survived; only the script was lost");
        assertEquals("1", redis.command("SCRIPT", "EXISTS", RedisStore.SHA1), "and it is loaded again");
    }

    @Test
    void stateIsOneCompactStringPerBucket(RedisEndpoint redis) {
        String k = key("compact");
        take(k, "10/s burst 20");
        assertEquals("string", redis.command("TYPE", k));
        // 10/s burst 20: capacity 20 ("u"), a token every 100,000 µs, n = 1 ("b")
        assertEquals("~u." + letters(100_000) + ".b", redis.command("GET", k).replaceAll("^\\d+", ""), "one state and its tag");
        assertEquals("embstr", redis.command("OBJECT", "ENCODING", k), "a one-limit bucket is one short string");
        String thirds = key("compact-thirds");
        take(thirds, "3/s; 100/day");
        // 3/s: capacity 3, 3 tokens every 1,000,000 µs; 100/day: capacity 100, one every 864,000,000 µs
        assertEquals(List.of("~d." + letters(1_000_000) + ".d", "~" + letters(100) + "." + letters(864_000_000) + ".b"),
                List.of(redis.command("GET", thirds).replaceAll("[0-9:]+(~[a-z.]+),[0-9]+(~[a-z.]+)", "$1,$2").split(",")));
        assertTrue(redis.command("GET", thirds).matches("\\d+:1:3~[a-z.]+,\\d+~[a-z.]+"),
                "a remainder names the unit it is counted in, and each state its limit: " + redis.command("GET", thirds));
    }

    /**
     * A rolling upgrade: the versions before tags and window ends read states with the patterns
     * below (bucket.lua's general path and refund.lua; the calendar quota's), so they must count
     * the states this version writes right and read the same numbers from them, by position.
     */
    @Test
    void thePatternsOfEarlierVersionsReadTheStatesThisVersionWrites(RedisEndpoint redis) {
        String k = key("earlier-patterns");
        take(k, "3/s; 100/day; 10/s burst 20", 2);
        String bucket = redis.command("GET", k);
        String cal = key("earlier-patterns") + ":cal";
        Replies.flat(store.acquire(List.of(BucketRequest.take(cal, Limit.parse("2/hour calendar; 5/day calendar"), 1, true,
                dev.tollgate.Algorithm.CALENDAR))));
        String quota = redis.command("GET", cal);
        String script = "local out = {} "
                + "for tat, frac, unit in string.gmatch(ARGV[1], '(%d+):?(%d*):?(%d*)') do "
                + "out[#out + 1] = tat .. '/' .. frac .. '/' .. unit end "
                + "out[#out + 1] = '|' "
                + "for start, count in string.gmatch(ARGV[2], '(%d+):(%d+)') do out[#out + 1] = start .. '/' .. count end "
                + "return table.concat(out, ' ')";
        String read = redis.command("EVAL", script, "0", bucket, quota);
        StringBuilder expected = new StringBuilder();
        for (String state : bucket.split(",")) {
            String[] numbers = state.replaceAll("~.*", "").split(":");
            expected.append(numbers[0]).append('/').append(numbers.length > 1 ? numbers[1] : "").append('/')
                    .append(numbers.length > 2 ? numbers[2] : "").append(' ');
        }
        expected.append('|');
        for (String state : quota.split(",")) {
            String[] numbers = state.split(":");
            expected.append(' ').append(numbers[0]).append('/').append(numbers[1]);
        }
        assertEquals(expected.toString(), read, "three token-bucket states (" + bucket + ") and two calendar states ("
                + quota + ")");
        assertTrue(bucket.matches("\\d+:2:3~[a-z.]+,\\d+~[a-z.]+,\\d+~[a-z.]+"), bucket);
        assertTrue(quota.matches("\\d+:1:\\d+,\\d+:1:\\d+"), quota);
    }

    /**
     * Keys left by a version whose keys did not name the algorithm: a policy that was a sliding
     * log left a sorted set where its token-bucket key now is. The script must neither fail (a
     * failure opens the circuit for every client) nor trust it: the key is absent.
     */
    @Test
    void aKeyOfTheOtherAlgorithmLeftBeforeAnUpgradeIsAbsentNotAnError(RedisEndpoint redis) {
        String k = key("upgrade-leftover");
        redis.command("ZADD", k, "1", "1:1", "2", "2:1");
        long[] r = take(k, "2/min");
        assertArrayEquals(new long[] {1, 30_000_000, 30_000_000, 0}, r, "a full bucket, as if the key were absent");
        assertEquals("string", redis.command("TYPE", k));

        String several = key("upgrade-leftover-several");
        redis.command("ZADD", several, "1", "1:1");
        String spent = key("spent");
        take(spent, "1/min");
        long[] refused = Replies.flat(store.acquire(List.of(
                BucketRequest.take(several, Limit.parse("2/min; 10/h"), 1, true),
                BucketRequest.take(spent, Limit.parse("1/min"), 1, true))));
        assertTrue(refused[11] > 0, "the other bucket refuses the request");
        assertEquals("none", redis.command("TYPE", several), "the leftover is deleted, even on a refusal");

        String logKey = key("upgrade-leftover-log");
        redis.command("SET", logKey, "12345");
        assertArrayEquals(new long[] {2, 1_000_000, 1_000_000, 0}, log(logKey, "3/s"));
        assertEquals("zset", redis.command("TYPE", logKey));
    }

    @Test
    void aRemainderWrittenByAnEarlierVersionIsReadInTheLimitsUnit(RedisEndpoint redis) {
        String k = key("legacy-remainder");
        long now = clock.nowMicros();
        redis.command("SET", k, (now + 666_666) + ":2"); // two thirds of a µs, as "<tat>:<frac>" in 1/3 µs
        long[] r = take(k, "3/s");
        assertTrue(admitted(r));
        assertArrayEquals(new long[] {0, 333_334, 1_000_000, 0}, r, "owes 666,666.67 + 333,333.33 µs: exactly one second");
    }

    /** A whole number in base 26, "a" for 0, as bucket.lua writes a tag. */
    static String letters(long x) {
        String s = "";
        do {
            s = (char) ('a' + x % 26) + s;
            x /= 26;
        } while (x > 0);
        return s;
    }

    private static long redisMicros(RedisEndpoint redis) {
        String[] t = redis.command("TIME").split("\n");
        return Long.parseLong(t[0]) * 1_000_000L + Long.parseLong(t[1]);
    }

    @Test
    void aSlidingLogStoresNoMoreEntriesThanItsLimitAndExpires(RedisEndpoint redis) {
        String k = key("log-bound");
        for (int i = 0; i < 50; i++) {
            log(k, "5/s; 8/min");
            clock.advanceMicros(100_000);
        }
        long entries = Long.parseLong(redis.command("ZCARD", k));
        assertTrue(entries <= 8, "at most the largest count per window: " + entries);
        try (RedisStore real = new RedisStore(JedisPort.standalone(settings(redis)))) {
            String fresh = key("log-expiry");
            Replies.flat(real.acquire(List.of(BucketRequest.take(fresh, Limit.parse("5/s; 8/min"), 1, true, dev.tollgate.Algorithm.SLIDING_LOG))));
            long pttl = Long.parseLong(redis.command("PTTL", fresh));
            assertTrue(pttl > 59_000 && pttl <= 60_000, "it expires when its newest entry leaves the longest window: " + pttl);
        }
    }

    /**
     * A reload that lengthens a log's window: the entries already stored count in the new window,
     * so the key must not expire on the old one's schedule, even when the decision refuses.
     */
    @Test
    void aLogKeyLivesAsLongAsItsLongestWindowAfterAReloadThatLengthensIt(RedisEndpoint redis) {
        try (RedisStore real = new RedisStore(JedisPort.standalone(settings(redis)))) {
            String k = key("log-lengthened");
            Replies.flat(real.acquire(List.of(BucketRequest.take(k, Limit.parse("1/s"), 1, true, dev.tollgate.Algorithm.SLIDING_LOG))));
            long before = Long.parseLong(redis.command("PTTL", k));
            assertTrue(before > 0 && before <= 1_000, "PTTL " + before);
            long[] refused = Replies.flat(real.acquire(List.of(BucketRequest.take(k, Limit.parse("1/min"), 1, true, dev.tollgate.Algorithm.SLIDING_LOG))));
            assertTrue(refused[3] > 0, "the entry counts in the minute");
            long after = Long.parseLong(redis.command("PTTL", k));
            assertTrue(after > 59_000 && after <= 60_000, "kept for the minute: PTTL " + after);
        }
    }

    /**
     * 32 threads at once, with and without auto-pipelining: a shared bucket admits exactly its
     * burst, and each thread's own bucket counts down exactly as that thread asked, so no reply
     * went to the wrong caller. The clock stands still, so no token comes back meanwhile.
     */
    @Test
    void concurrentCallsAreExactAndEachCallerGetsItsOwnReply(RedisEndpoint redis) throws Exception {
        for (boolean pipelining : List.of(true, false)) {
            RedisSettings base = settings(redis);
            RedisSettings s = base.toBuilder().poolSize(8).circuit(3, Duration.ofSeconds(1)).autoPipelining(pipelining).build();
            long now = 1_000_000_000_000L;
            try (RedisStore store = new RedisStore(JedisPort.create(s), () -> now)) {
                String shared = key("concurrent-shared-" + pipelining);
                int threads = 32;
                int each = 25;
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
                java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
                List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String own = key("concurrent-own-" + pipelining + "-" + t);
                    results.add(pool.submit(() -> {
                        start.await();
                        int admittedShared = 0;
                        for (int i = 0; i < each; i++) {
                            long[] mine = Replies.flat(store.acquire(List.of(BucketRequest.take(own, Limit.parse("10/min"), 1, true))));
                            assertEquals(Math.max(0, 9 - i), mine[0], "remaining in this thread's own bucket, call " + i);
                            assertEquals(i < 10, admitted(mine), "call " + i);
                            admittedShared += admitted(Replies.flat(store.acquire(List.of(
                                    BucketRequest.take(shared, Limit.parse("100/min"), 1, true))))) ? 1 : 0;
                        }
                        return admittedShared;
                    }));
                }
                start.countDown();
                int total = 0;
                for (java.util.concurrent.Future<Integer> f : results) {
                    total += f.get();
                }
                pool.shutdown();
                assertEquals(100, total, "the shared bucket admitted exactly its burst (pipelining " + pipelining + ")");
            }
        }
    }
}
