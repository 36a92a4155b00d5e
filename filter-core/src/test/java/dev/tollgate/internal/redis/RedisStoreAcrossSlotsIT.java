package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Cluster path for a request whose policies live in two hash slots, run against a real Redis
 * by a port that says the keys are in different slots: all-or-nothing still holds, by asking
 * every slot first and refunding if a slot refuses after another took.
 */
@WithRedis
class RedisStoreAcrossSlotsIT {

    final ManualClock clock = new ManualClock();
    final String run = UUID.randomUUID().toString();
    RedisPort jedis;
    SlottedPort port;
    RedisStore store;
    RedisStore other;

    /** A real Redis that pretends keys containing "slot-a" and the others are in different slots. */
    static final class SlottedPort implements RedisPort {
        final RedisPort real;
        Runnable beforeTakeInSlotB = () -> { };

        SlottedPort(RedisPort real) {
            this.real = real;
        }

        @Override
        public boolean clustered() {
            return true;
        }

        @Override
        public int slot(String key) {
            return key.contains("slot-a") ? 1 : 2;
        }

        @Override
        public long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args) {
            // a call that takes: the general form's ARGV[2] is "" (not "dry"); the short form is never dry
            if (!"dry".equals(new String(args.get(1), java.nio.charset.StandardCharsets.UTF_8))
                    && new String(keys.get(0), java.nio.charset.StandardCharsets.UTF_8).contains("slot-b")) {
                Runnable hook = beforeTakeInSlotB;
                beforeTakeInSlotB = () -> { };
                hook.run();
            }
            return real.evalsha(sha1, keys, args);
        }

        @Override
        public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
            return real.eval(script, keys, args);
        }

        @Override
        public String scriptLoad(String script, String routingKey) {
            return real.scriptLoad(script, routingKey);
        }

        @Override
        public String describe() {
            return "slotted " + real.describe();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    @BeforeEach
    void open(RedisEndpoint redis) {
        jedis = JedisPort.create(RedisStoreIT.settings(redis));
        port = new SlottedPort(jedis);
        store = new RedisStore(port, clock::nowMicros);
        other = new RedisStore(jedis, clock::nowMicros);
        store.load("x");
    }

    @AfterEach
    void close() {
        jedis.close();
    }

    BucketRequest request(String slot, String limits, Algorithm algorithm) {
        // a calendar policy's limits are calendar quotas: the same counts, per hour
        String text = algorithm == Algorithm.CALENDAR ? limits.replace("/min", "/hour calendar") : limits;
        return BucketRequest.take("tollgate-test:{" + run + "-" + slot + "}:p", Limit.parse(text), 1, true, algorithm);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void bothSlotsTakeWhenBothAdmit(Algorithm algorithm) {
        List<BucketRequest> call = List.of(request("slot-a", "5/min", algorithm), request("slot-b", "3/min", algorithm));
        long[] r = Replies.flat(store.acquire(call));
        assertEquals(4, r[0]);
        assertEquals(2, r[4]);
        assertEquals(0, r[3] + r[7]);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aSlotThatRefusesFirstLeavesTheOtherUntouched(Algorithm algorithm) {
        BucketRequest a = request("slot-a", "5/min", algorithm);
        BucketRequest b = request("slot-b", "1/min", algorithm);
        Replies.flat(other.acquire(List.of(b))); // b is spent
        long[] r = Replies.flat(store.acquire(List.of(a, b)));
        assertTrue(r[7] > 0, "b refuses");
        assertEquals(5, Replies.flat(other.acquire(List.of(a)))[0] + 1, "a was never charged: this is its first token");
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aSlotThatRefusesAfterTheOtherTookMakesItRefund(Algorithm algorithm) {
        BucketRequest a = request("slot-a", "5/min", algorithm);
        BucketRequest b = request("slot-b", "1/min", algorithm);
        port.beforeTakeInSlotB = () -> Replies.flat(other.acquire(List.of(b))); // someone else takes b's last token
        long[] r = Replies.flat(store.acquire(List.of(a, b)));
        assertTrue(r[7] > 0, "b refuses when it comes to taking");
        assertEquals(4, Replies.flat(other.acquire(List.of(a)))[0], "a's token was given back: this one leaves 4");
    }

    /**
     * A refund of a bucket of several limits gives each limit its own token back, found as
     * bucket.lua finds it, and keeps what names each state: a token bucket's tags, a calendar
     * quota's window ends.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundOfSeveralLimitsGivesEachItsOwnBackAndKeepsWhatNamesThem(Algorithm algorithm, RedisEndpoint redis) {
        String limits = algorithm == Algorithm.CALENDAR ? "5/hour calendar; 100/day calendar" : "5/min; 100/day";
        BucketRequest.Take a = BucketRequest.take("tollgate-test:{" + run + "-slot-a}:p", Limit.parse(limits), 1, true, algorithm);
        BucketRequest b = request("slot-b", "1/min", algorithm);
        Replies.flat(other.acquire(List.of(a)));
        String before = algorithm == Algorithm.SLIDING_LOG ? "" : redis.command("GET", a.key());
        port.beforeTakeInSlotB = () -> Replies.flat(other.acquire(List.of(b))); // someone else takes b's last token
        long[] r = Replies.flat(store.acquire(List.of(a, b)));
        assertTrue(r[11] > 0, "b refuses when it comes to taking");
        if (algorithm != Algorithm.SLIDING_LOG) {
            assertEquals(before, redis.command("GET", a.key()), "a's state is again what it was, tags and window ends too");
        }
        long[] again = Replies.flat(other.acquire(List.of(a)));
        assertEquals(3, again[0], "a's token was given back to its first limit: this one leaves 3");
        assertEquals(98, again[4], "and to its second: 98");
    }

    /**
     * A refund gives back to the states of another configuration's limits too: bucket.lua charged
     * them what it took (a token bucket of {@code 5/min} on the other node, a calendar window of
     * another zone), and the refund leaves each as it was.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "CALENDAR"})
    void aRefundGivesBackWhatTheStatesOfAnotherConfigurationWereCharged(Algorithm algorithm, RedisEndpoint redis) {
        boolean calendar = algorithm == Algorithm.CALENDAR;
        String key = "tollgate-test:{" + run + "-slot-a}:p";
        List<Limit> theirs = calendar ? Limit.parse("5/hour calendar") : Limit.parse("5/min");
        List<Limit> ours = calendar ? List.of(Limit.parse("5/hour calendar").get(0).inZone(java.time.ZoneId.of("Asia/Kolkata")))
                : Limit.parse("10/min");
        Replies.flat(other.acquire(List.of(BucketRequest.take(key, theirs, 1, true, algorithm))));
        String before = redis.command("GET", key);
        BucketRequest.Take a = BucketRequest.take(key, ours, 1, true, algorithm);
        BucketRequest b = request("slot-b", "1/min", algorithm);
        port.beforeTakeInSlotB = () -> Replies.flat(other.acquire(List.of(b))); // someone else takes b's last token
        long[] r = Replies.flat(store.acquire(List.of(a, b)));
        assertTrue(r[7] > 0, "b refuses when it comes to taking");
        String after = redis.command("GET", key);
        assertTrue(after.endsWith("," + before), "the other configuration's state is again what it was: " + before + " in "
                + after);
        assertEquals(3, Replies.flat(other.acquire(List.of(BucketRequest.take(key, theirs, 1, true, algorithm))))[0],
                "the other configuration: 5, less its first, less this one");
        assertEquals(calendar ? 2 : 6, Replies.flat(other.acquire(List.of(a)))[0], calendar
                ? "ours (a window that overlaps theirs): their first, read as ours, their second, charged to ours, and this one"
                : "ours: their first (12 s, read as two of ours), their second (charged to ours: one of ours), and this one");
    }

    /**
     * Issue 28, item 4: a refund of a group that holds a pause gate leaves the gate as it is (a gate
     * takes nothing). Here the pause is set after the gate's slot took and before the other slot
     * refuses. Before the fix, refund.lua read the gate's end as a token bucket of p = n = 0 and
     * wrote {@code -nan:-nan:0}, which bucket.lua reads as an open gate: the pause was lifted.
     */
    @Test
    void aRefundOfAGroupHoldingAPauseGateLeavesItsPause(RedisEndpoint redis) {
        BucketRequest a = request("slot-a", "5/min", Algorithm.TOKEN_BUCKET);
        BucketRequest gate = BucketRequest.pauseGate("tollgate-test:{" + run + "-slot-a}:gate:p", Limit.parse("5/min").get(0),
                true);
        BucketRequest b = request("slot-b", "1/min", Algorithm.TOKEN_BUCKET);
        port.beforeTakeInSlotB = () -> {
            other.pause(gate.key(), 60_000_000); // a remote asked to pause, after the gate admitted this request
            Replies.flat(other.acquire(List.of(b))); // and someone else takes b's last token
        };
        long[] r = Replies.flat(store.acquire(List.of(a, gate, b)));
        assertTrue(r[11] > 0, "b refuses when it comes to taking");
        assertEquals(Long.toString(clock.nowMicros() + 60_000_000), redis.command("GET", gate.key()),
                "the gate still holds the end of its pause");
        long[] after = Replies.flat(other.acquire(List.of(gate)));
        assertEquals(60_000_000, after[3], "the pause still refuses, for its whole minute");
        assertEquals(4, Replies.flat(other.acquire(List.of(a)))[0], "and a's token was given back: this one leaves 4");
    }

    /**
     * Issue 28, item 5: a refund gives back only what the take took. A shadow key takes only when
     * its own limits admit; one that refused on its own took nothing, and gets nothing back. Before
     * the fix it was refunded too: a spent {@code 1/min} shadow limit had its token back, and
     * its numbers drifted by a whole burst.
     */
    @Test
    void aRefundCreditsNoShadowKeyThatTookNothing() {
        BucketRequest a = request("slot-a", "5/min", Algorithm.TOKEN_BUCKET);
        BucketRequest.Take shadow = BucketRequest.take("tollgate-test:{" + run + "-slot-a}:shadow", Limit.parse("1/min"), 1, false);
        BucketRequest b = request("slot-b", "1/min", Algorithm.TOKEN_BUCKET);
        assertEquals(0, Replies.flat(other.acquire(List.of(shadow)))[3], "the shadow limit's one token, spent");
        port.beforeTakeInSlotB = () -> Replies.flat(other.acquire(List.of(b))); // someone else takes b's last token
        long[] r = Replies.flat(store.acquire(List.of(a, shadow, b)));
        assertTrue(r[7] > 0, "the shadow limit refuses on its own (and takes nothing)");
        assertTrue(r[11] > 0, "b refuses when it comes to taking");
        assertEquals(4, Replies.flat(other.acquire(List.of(a)))[0], "a's token was given back: this one leaves 4");
        long[] again = Replies.flat(other.acquire(List.of(shadow)));
        assertEquals(60_000_000, again[3], "the shadow limit got no token it had not given: still a minute to wait");
    }

    /**
     * Issue 28, item 2, across slots: on a node whose clock is three hours behind, the dry run,
     * the take and the refund all count in the window of Redis' time (the refund's windows are
     * computed around the decision's own time). Before the fix the node counted in an hour that
     * had ended, and a refused request left its quota as it found it only by chance.
     */
    @Test
    void aNodeHoursBehindTakesAndRefundsItsQuotaInRedisWindow(RedisEndpoint redis) {
        RedisStore behind = new RedisStore(port, clock::nowMicros, () -> clock.nowMicros() - 3 * 3_600_000_000L);
        BucketRequest a = request("slot-a", "2/min", Algorithm.CALENDAR); // 2/hour calendar
        BucketRequest b = request("slot-b", "1/min", Algorithm.CALENDAR);
        long[] first = Replies.flat(behind.acquire(List.of(a, b)));
        assertEquals(0, first[3] + first[7], "both admit");
        String before = redis.command("GET", a.key());
        long[] refused = Replies.flat(behind.acquire(List.of(a, b)));
        assertTrue(refused[7] > 0, "b's hour is spent");
        assertEquals(before, redis.command("GET", a.key()), "a was asked (dry) and not charged");
        BucketRequest c = request("slot-b-2", "1/min", Algorithm.CALENDAR);
        port.beforeTakeInSlotB = () -> Replies.flat(other.acquire(List.of(c))); // someone else takes c's one
        long[] late = Replies.flat(behind.acquire(List.of(a, c)));
        assertTrue(late[7] > 0, "c refuses when it comes to taking");
        assertEquals(before, redis.command("GET", a.key()), "a took, and was refunded in the same window");
        long[] last = Replies.flat(behind.acquire(List.of(a)));
        assertEquals(0, last[0], "a's hour: its first and this one, of 2");
        assertTrue(Replies.flat(behind.acquire(List.of(a)))[3] > 0, "and then refused");
    }

    BucketRequest.Lease lease(String slot, String id) {
        return BucketRequest.lease("tollgate-test:{" + run + "-" + slot + "}:p:c",
                new dev.tollgate.Concurrency(1, java.time.Duration.ofMinutes(1)).limit(), true, id);
    }

    @Test
    void aLeaseTakenInOneSlotIsGivenBackWhenTheOtherRefusesAfterwards() {
        BucketRequest a = lease("slot-a", "first");
        BucketRequest b = request("slot-b", "1/min", Algorithm.TOKEN_BUCKET);
        port.beforeTakeInSlotB = () -> Replies.flat(other.acquire(List.of(b))); // someone else takes b's last token
        long[] r = Replies.flat(store.acquire(List.of(a, b)));
        assertTrue(r[7] > 0, "b refuses when it comes to taking");
        assertEquals(0, Replies.flat(other.acquire(List.of(lease("slot-a", "second"))))[3], "a's slot was given back");
    }

    @Test
    void leasesInTwoSlotsAreGivenBackSlotBySlot() {
        List<BucketRequest.Lease> both = List.of(lease("slot-a", "one"), lease("slot-b", "two"));
        assertEquals(0, Replies.flat(store.acquire(List.copyOf(both)))[3]);
        assertTrue(Replies.flat(other.acquire(List.of(lease("slot-b", "three"))))[3] > 0, "slot-b's one slot is held");
        store.release(both);
        long[] again = Replies.flat(store.acquire(List.of(lease("slot-a", "four"), lease("slot-b", "five"))));
        assertEquals(0, again[3] + again[7], "both slots came back");
    }
}
