package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.Concurrency;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 28, item 6: the scripts that read Redis {@code TIME} and then write ask Redis to replicate
 * their writes ({@code redis.replicate_commands()}), so a replica holds what the master holds. Run
 * on the Redis 6.2 of the test dependency, whatever Redis is on the {@code PATH}: Redis 5 and 6 can
 * be set to replicate a script whole ({@code lua-replicate-commands no}; Redis 7 has no such
 * setting and always replicates the writes), and then refuse a write after {@code TIME} in a script
 * that did not ask first. Before the fix every call below failed so ("Write commands not allowed
 * after non deterministic commands").
 */
class ReplicatedScriptsIT {

    @Test
    void everyScriptThatReadsTimeRunsOnARedis6SetToReplicateScriptsWholeAndItsReplicaHoldsTheSame() throws InterruptedException {
        try (RedisProcess master = RedisProcess.start(TestRedis.embeddedBinary(), "embedded redis-server 6.2",
                "--lua-replicate-commands", "no");
             RedisProcess replica = RedisProcess.start(TestRedis.embeddedBinary(), "embedded redis-server 6.2 (replica)",
                     "--replicaof", master.host(), Integer.toString(master.port()));
             RedisStore store = new RedisStore(JedisPort.standalone(RedisStoreIT.settings(master)))) {
            assertTrue(master.command("INFO", "server").contains("redis_version:6."), "a Redis 6: " + master.command("INFO", "server"));
            assertEquals("lua-replicate-commands\nno", master.command("CONFIG", "GET", "lua-replicate-commands").strip()
                    .replace("\r", ""), "scripts replicated whole");
            awaitLink(replica);
            store.load("x");
            String p = "replicated:{c}:";
            List<BucketRequest> calls = List.of(
                    BucketRequest.take(p + "short", Limit.parse("10/s"), 1, true), // the short form
                    BucketRequest.take(p + "general", Limit.parse("10/s; 100/min"), 1, true),
                    BucketRequest.take(p + "log:log", Limit.parse("5/min"), 1, true, Algorithm.SLIDING_LOG),
                    BucketRequest.take(p + "quota:cal", Limit.parse("5/hour calendar"), 1, true, Algorithm.CALENDAR),
                    BucketRequest.lease(p + "slots:c", new Concurrency(2, Duration.ofMinutes(1)).limit(), true, "lease-1"));
            for (BucketRequest r : calls) {
                long[] reply = Replies.flat(store.acquire(List.of(r)));
                assertEquals(0, reply[3], r.key() + " admits: " + java.util.Arrays.toString(reply));
            }
            long[] together = Replies.flat(store.acquire(calls.subList(0, 4)));
            assertEquals(0, together[3] + together[7] + together[11] + together[15], "and all four in one call");
            assertTrue(store.pause(p + "gate:p", 60_000_000) > 0, "pause.lua sets its pause");
            assertEquals("1", master.command("WAIT", "1", "5000").strip(), "the replica acknowledged every write");
            for (String k : List.of("short", "general", "quota:cal", "gate:p")) {
                String held = master.command("GET", p + k);
                assertTrue(held != null && !held.isBlank(), p + k + " written");
                assertEquals(held, replica.command("GET", p + k), "the replica holds what the master holds at " + p + k);
            }
            for (String k : List.of("log:log", "slots:c")) {
                String held = master.command("ZRANGE", p + k, "0", "-1", "WITHSCORES");
                assertTrue(held != null && !held.isBlank(), p + k + " written");
                assertEquals(held, replica.command("ZRANGE", p + k, "0", "-1", "WITHSCORES"),
                        "the replica holds what the master holds at " + p + k);
            }
        }
    }

    private static void awaitLink(RedisProcess replica) throws InterruptedException {
        long until = System.nanoTime() + 10_000_000_000L;
        while (!replica.command("INFO", "replication").contains("master_link_status:up")) {
            assertTrue(System.nanoTime() < until, "the replica never linked: " + replica.command("INFO", "replication"));
            Thread.sleep(50);
        }
    }
}
