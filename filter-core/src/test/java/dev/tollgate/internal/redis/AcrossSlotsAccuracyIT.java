package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.AccuracyRun;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import dev.tollgate.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Accuracy across Redis Cluster slots, where every slot is first asked without taking (the dry
 * run) and a slot that took is refunded when a later slot refuses ({@code refund.lua}). A real
 * Redis, with a port that places keys in different slots ({@link RedisStoreAcrossSlotsIT.SlottedPort}).
 */
class AcrossSlotsAccuracyIT {

    static RedisPort jedis;

    @BeforeAll
    static void connect() {
        jedis = JedisPort.create(RedisStoreIT.settings(TestRedis.shared()));
    }

    @AfterAll
    static void disconnect() {
        jedis.close();
    }

    /** One step: a request on the log alone, a request on both slots (where b may be taken meanwhile), b refilled, or time. */
    record Step(String kind, int cost, long micros) {
        @Override
        public String toString() {
            return kind + (cost > 0 ? " cost " + cost : "") + (micros > 0 ? " " + micros + " µs" : "");
        }
    }

    /**
     * Whatever the interleaving of requests, refunds and clock steps (often none, so that many
     * entries share one microsecond), a sliding log holds exactly the requests that were admitted
     * and not refunded (issue 10, finding 9: members must be unique).
     */
    @Test
    void aLogHoldsExactlyTheAdmittedRequestsThatWereNotRefunded() {
        Tally tally = new Tally();
        qt(150).forAll(steps()).checkAssert(steps -> aLogHoldsExactlyTheAdmittedRequestsThatWereNotRefunded(steps, tally));
        System.out.println("[AcrossSlotsAccuracyIT] " + tally);
        tally.reached("a refund");
    }

    private void aLogHoldsExactlyTheAdmittedRequestsThatWereNotRefunded(List<Step> steps, Tally tally) {
        ManualClock clock = new ManualClock();
        String run = UUID.randomUUID().toString();
        RedisStoreAcrossSlotsIT.SlottedPort port = new RedisStoreAcrossSlotsIT.SlottedPort(jedis);
        RedisStore slotted = new RedisStore(port, clock::nowMicros);
        RedisStore plain = new RedisStore(jedis, clock::nowMicros);
        List<Limit> logLimit = Limit.parse("8/min");
        String a = "acc-refund:{" + run + "-slot-a}:p";
        String b = "acc-refund:{" + run + "-slot-b}:p";
        BucketRequest.Take bOnce = BucketRequest.take(b, Limit.parse("1/day"), 1, true);
        List<Long> model = new ArrayList<>(); // times of the entries the log should hold
        boolean bSpent = false;
        int refunds = 0;
        List<String> trace = new ArrayList<>();
        for (Step s : steps) {
            trace.add(s.toString());
            long now = clock.nowMicros();
            model.removeIf(t -> t <= now - 60_000_000L);
            BucketRequest.Take log = BucketRequest.take(a, logLimit, s.cost(), true, Algorithm.SLIDING_LOG);
            switch (s.kind()) {
                case "log":
                    long[] reply = Replies.flat(plain.acquire(List.of(log)));
                    if (model.size() + s.cost() <= 8) {
                        addTimes(model, now, s.cost());
                    }
                    if (reply[0] != 8 - model.size()) {
                        throw new AssertionError("the log answered " + reply[0] + " remaining, but " + model.size()
                                + " requests were admitted and not refunded, after: " + trace);
                    }
                    break;
                case "both":
                case "both, b taken meanwhile":
                    boolean steal = s.kind().startsWith("both,");
                    if (steal) {
                        port.beforeTakeInSlotB = () -> Replies.flat(plain.acquire(List.of(bOnce)));
                    }
                    Replies.flat(slotted.acquire(List.of(log, bOnce)));
                    port.beforeTakeInSlotB = () -> { };
                    boolean logAdmits = model.size() + s.cost() <= 8;
                    if (logAdmits && !bSpent) {
                        bSpent = true;
                        if (steal) {
                            refunds++; // the log took, then b refused: the log was refunded
                        } else {
                            addTimes(model, now, s.cost());
                        }
                    }
                    break;
                case "refill b":
                    TestRedis.shared().command("DEL", b);
                    bSpent = false;
                    continue;
                default:
                    clock.advanceMicros(s.micros());
                    continue;
            }
            long held = Long.parseLong(TestRedis.shared().command("ZCOUNT", a, "(" + (now - 60_000_000L), "+inf"));
            if (held != model.size()) {
                throw new AssertionError("the log holds " + held + " entries, but " + model.size()
                        + " requests were admitted and not refunded, after: " + trace);
            }
        }
        tally.count("a refund", refunds > 0);
    }

    /**
     * A request refused in the dry run still stores the capped debt of a bucket whose burst
     * shrank: otherwise its Retry-After, computed from the capped debt, would not be kept.
     */
    @Test
    void theDryRunStoresTheCappedDebtSoTheRetryAfterIsKept() {
        ManualClock clock = new ManualClock();
        String run = UUID.randomUUID().toString();
        RedisStore slotted = new RedisStore(new RedisStoreAcrossSlotsIT.SlottedPort(jedis), clock::nowMicros);
        RedisStore plain = new RedisStore(jedis, clock::nowMicros);
        String a = "acc-dry:{" + run + "-slot-a}:p";
        String b = "acc-dry:{" + run + "-slot-b}:p";
        Replies.flat(plain.acquire(List.of(BucketRequest.take(a, Limit.parse("1000/day"), 1000, true))));
        Replies.flat(plain.acquire(List.of(BucketRequest.take(b, Limit.parse("1/s"), 1, true))));
        List<BucketRequest> both = List.of(BucketRequest.take(a, Limit.parse("1000/day burst 10"), 1, true),
                BucketRequest.take(b, Limit.parse("1/s"), 1, true));
        long[] refused = Replies.flat(slotted.acquire(both));
        long retry = AccuracyRun.retryAfter(both, refused);
        if (retry != 86_400_000) {
            throw new AssertionError("one token of 1000/day away, 86.4 s: " + java.util.Arrays.toString(refused));
        }
        clock.advanceMicros(retry);
        long[] again = Replies.flat(slotted.acquire(both));
        if (AccuracyRun.refused(both, again)) {
            throw new AssertionError("refused again at the announced time: " + java.util.Arrays.toString(again));
        }
    }

    private static void addTimes(List<Long> model, long now, int cost) {
        for (int i = 0; i < cost; i++) {
            model.add(now);
        }
    }

    static Gen<List<Step>> steps() {
        Gen<Integer> cost = ints(1, 3);
        Gen<Step> step = frequency(
                weight(4, cost.map(c -> new Step("log", c, 0))),
                weight(3, cost.map(c -> new Step("both", c, 0))),
                weight(4, cost.map(c -> new Step("both, b taken meanwhile", c, 0))),
                weight(3, just(new Step("refill b", 0, 0))),
                weight(2, longs(1, 30_000_000).map(t -> new Step("time", 0, t))));
        return lists(step, 1, 30);
    }
}
