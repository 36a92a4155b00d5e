package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import dev.tollgate.testing.TestRedis;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * A request of one Cluster slot whose keys a slot migration keeps apart ({@code TRYAGAIN} after
 * the port's tries again: {@link RedisPort.SplitKeysException}) is decided key by key, and the
 * replies are exactly those of one atomic call: the reference model is {@code bucket.lua} itself,
 * run on twin keys of a real Redis in one call, on the same clock. The port is a real Redis that
 * refuses every call of several keys as a migrating slot would ({@link SplittingPort}); the
 * migration itself is {@code ClusterMigrationAccuracyIT}'s and {@code ClusterReshardingIT}'s.
 */
class SplitKeysAccuracyIT {

    static RedisPort jedis;

    @BeforeAll
    static void connect() {
        jedis = JedisPort.create(RedisStoreIT.settings(TestRedis.shared()));
    }

    @AfterAll
    static void disconnect() {
        jedis.close();
    }

    /**
     * A real Redis that pretends every key is in one Cluster slot being migrated, with its keys
     * apart: a call of several keys is refused as JedisPort refuses it once {@code TRYAGAIN}
     * persists, a call of one key runs. Counts both.
     */
    static class SplittingPort implements RedisPort {
        final RedisPort real;
        int refused;
        int singles;
        /** Run once before the first take (not a dry run) of a key containing {@code ":b"}. */
        Runnable beforeTakeOfB = () -> { };

        SplittingPort(RedisPort real) {
            this.real = real;
        }

        private void check(List<byte[]> keys, List<byte[]> args, boolean bucket) {
            if (keys.size() > 1) {
                refused++;
                throw new SplitKeysException(null, real.deadline());
            }
            singles++;
            // a call that takes: the general form's ARGV[2] is "" (not "dry"); the short form is never dry
            if (bucket && !"dry".equals(new String(args.get(1), StandardCharsets.UTF_8))
                    && new String(keys.get(0), StandardCharsets.UTF_8).contains(":b")) {
                Runnable hook = beforeTakeOfB;
                beforeTakeOfB = () -> { };
                hook.run();
            }
        }

        @Override
        public boolean clustered() {
            return true;
        }

        @Override
        public int slot(String key) {
            return 7;
        }

        @Override
        public long deadline() {
            return real.deadline();
        }

        @Override
        public long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args) {
            check(keys, args, true);
            return real.evalsha(sha1, keys, args);
        }

        @Override
        public long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
            check(keys, args, true);
            return real.evalsha(sha1, script, keys, args, deadline);
        }

        @Override
        public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
            check(keys, args, false);
            return real.eval(script, keys, args);
        }

        @Override
        public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
            check(keys, args, false);
            return real.eval(script, keys, args, deadline);
        }

        @Override
        public String scriptLoad(String script, String routingKey) {
            return real.scriptLoad(script, routingKey);
        }

        @Override
        public String describe() {
            return "splitting " + real.describe();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    /** A request of 2 or 3 of the keys, or a step of the clock. */
    record Step(List<Integer> keys, List<Integer> costs, long micros) {
        @Override
        public String toString() {
            return keys.isEmpty() ? "+" + micros + " µs" : "keys " + keys + " costs " + costs;
        }
    }

    private static final List<List<Limit>> LIMITS = List.of(
            Limit.parse("5/s burst 5"), Limit.parse("3/min"), Limit.parse("10/h burst 4; 2/s burst 2"), Limit.parse("7/s"));

    @Test
    void aRequestDecidedKeyByKeyGetsExactlyTheRepliesOfOneAtomicCall() {
        Tally tally = new Tally();
        qt(60).forAll(steps(), algorithms(), limits())
                .checkAssert((steps, algorithms, limits) -> aRequestDecidedKeyByKeyIsRepliedAsOneAtomicCall(steps, algorithms, limits, tally));
        System.out.println("SplitKeysAccuracyIT admitted: " + tally);
        tally.reached("some admitted");
    }

    private void aRequestDecidedKeyByKeyIsRepliedAsOneAtomicCall(List<Step> steps, List<Algorithm> algorithms, List<Integer> limits,
                                                                Tally tally) {
        ManualClock clock = new ManualClock();
        String run = UUID.randomUUID().toString();
        SplittingPort port = new SplittingPort(jedis);
        RedisStore split = new RedisStore(port, clock::nowMicros);
        RedisStore atomic = new RedisStore(jedis, clock::nowMicros);
        List<String> trace = new ArrayList<>();
        int admitted = 0;
        for (Step s : steps) {
            trace.add(s.toString());
            if (s.keys().isEmpty()) {
                clock.advanceMicros(s.micros());
                continue;
            }
            List<BucketRequest> bySplit = new ArrayList<>();
            List<BucketRequest> byModel = new ArrayList<>();
            for (int k = 0; k < s.keys().size(); k++) {
                int key = s.keys().get(k);
                List<Limit> l = LIMITS.get(limits.get(key));
                Algorithm a = algorithms.get(key);
                bySplit.add(BucketRequest.take("split:{" + run + "}:" + key, l, s.costs().get(k), true, a));
                byModel.add(BucketRequest.take("model:{" + run + "}:" + key, l, s.costs().get(k), true, a));
            }
            int refusedBefore = port.refused;
            List<BucketReply> replies = split.acquire(bySplit);
            List<BucketReply> model = atomic.acquire(byModel);
            assertEquals(refusedBefore + 1, port.refused, "the call of several keys was refused, once: " + trace);
            boolean admits = BucketReply.enforcingAdmit(byModel, model);
            assertEquals(admits, BucketReply.enforcingAdmit(bySplit, replies), "admitted as one atomic call: " + trace);
            assertArrayEquals(Replies.flat(model), Replies.flat(replies), "replied as one atomic call: " + trace);
            trace.add(admits ? "admitted" : "refused");
            admitted += admits ? 1 : 0;
        }
        tally.count("some admitted", admitted > 0);
    }

    /**
     * A key taken by another request between the dry runs and the take: the request is refused,
     * and the key that took first is refunded exactly, key by key as it was taken.
     */
    @Test
    void aKeyThatRefusesAtItsTakeHasTheKeysThatTookRefunded() {
        ManualClock clock = new ManualClock();
        String run = UUID.randomUUID().toString();
        SplittingPort port = new SplittingPort(jedis);
        RedisStore split = new RedisStore(port, clock::nowMicros);
        RedisStore plain = new RedisStore(jedis, clock::nowMicros);
        List<Limit> limit = Limit.parse("10/min burst 3");
        BucketRequest.Take a = BucketRequest.take("split:{" + run + "}:a", limit, 2, true);
        BucketRequest.Take b = BucketRequest.take("split:{" + run + "}:b", Limit.parse("1/day"), 1, true);
        BucketRequest.Take twin = BucketRequest.take("split:{" + run + "}:twin", limit, 2, true);
        port.beforeTakeOfB = () -> plain.acquire(List.of(b)); // b's one token goes to another request
        List<BucketReply> replies = split.acquire(List.of(a, b));
        assertFalse(BucketReply.enforcingAdmit(List.of(a, b), replies), "refused by b at its take");
        assertTrue(replies.get(0).admits(), "a had taken");
        // a is as if never asked: its next reply is that of a twin never asked
        assertArrayEquals(Replies.flat(plain.acquire(List.of(twin))), Replies.flat(split.acquire(List.of(a))),
                "a refunded exactly");
    }

    /** A single key refused as split (no port does so) cannot be split further: thrown, no verdict. */
    @Test
    void aSingleKeyRefusedAsSplitIsThrown() {
        SplittingPort port = new SplittingPort(jedis) {
            @Override
            public long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
                throw new SplitKeysException(null, deadline);
            }
        };
        RedisStore split = new RedisStore(port, new ManualClock()::nowMicros);
        String run = UUID.randomUUID().toString();
        List<BucketRequest> two = List.of(BucketRequest.take("split:{" + run + "}:a", Limit.parse("1/s"), 1, true),
                BucketRequest.take("split:{" + run + "}:b", Limit.parse("1/s"), 1, true));
        assertThrows(RedisPort.SplitKeysException.class, () -> split.acquire(two));
    }

    /** Releasing leases of one slot whose keys are kept apart releases them one by one. */
    @Test
    void leasesOfKeysKeptApartAreReleasedOneByOne() {
        SplittingPort port = new SplittingPort(jedis);
        RedisStore split = new RedisStore(port, new ManualClock()::nowMicros);
        String run = UUID.randomUUID().toString();
        Limit one = new dev.tollgate.Concurrency(1, java.time.Duration.ofMinutes(1)).limit();
        List<BucketRequest.Lease> leases = leases(run, one, "1");
        assertTrue(BucketReply.enforcingAdmit(leases, split.acquire(List.copyOf(leases))), "both leases taken, key by key");
        assertFalse(BucketReply.enforcingAdmit(leases, split.acquire(List.copyOf(leases(run, one, "2")))), "held: no second one");
        int refused = port.refused;
        split.release(leases);
        assertEquals(refused + 1, port.refused, "the release of both keys was refused together");
        leases = leases(run, one, "3");
        assertTrue(BucketReply.enforcingAdmit(leases, split.acquire(List.copyOf(leases))), "released, both taken again");
    }

    private static List<BucketRequest.Lease> leases(String run, Limit limit, String id) {
        return List.of(BucketRequest.lease("split:{" + run + "}:a:c", limit, true, "a-" + id),
                BucketRequest.lease("split:{" + run + "}:b:c", limit, true, "b-" + id));
    }

    /**
     * A request of 2 or 3 distinct keys of the three, in any order (the key-by-key path asks and
     * takes them in the request's order), with a cost of 1 to 3 each; or a step of the clock.
     */
    static Gen<List<Step>> steps() {
        List<List<Integer>> orders = List.of(List.of(0, 1, 2), List.of(0, 2, 1), List.of(1, 0, 2),
                List.of(1, 2, 0), List.of(2, 0, 1), List.of(2, 1, 0));
        Gen<List<Integer>> keys = ints(2, 3).zip(of(orders), (size, order) -> order.subList(0, size));
        Gen<Step> request = keys.flatMap(k -> lists(ints(1, 3), k.size()).map(costs -> new Step(k, costs, 0)));
        Gen<Step> tick = longs(1, 3_000_000).map(m -> new Step(List.of(), List.of(), m));
        return lists(frequency(weight(4, request), weight(1, tick)), 1, 25);
    }

    static Gen<List<Algorithm>> algorithms() {
        return lists(of(Algorithm.TOKEN_BUCKET, Algorithm.SLIDING_LOG), 3);
    }

    static Gen<List<Integer>> limits() {
        return lists(ints(0, LIMITS.size() - 1), 3);
    }
}
