package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.Tally;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@code bucket.lua} decides a lone one-limit token bucket on a path of its own, written for speed
 * (issue 15): with n = 1 in the script's short form (full and want computed by the caller, a reply
 * of after, retry and now from which {@link dev.tollgate.internal.bucket.BucketReply#decodeShort}
 * computes the rest), with another n in the general form's one-key path. The general path, which
 * decides every shape and which {@code RedisStoreAccuracyIT} holds to {@code BucketModel}, is the
 * reference. Each try writes one stored state under two keys, asks the lone bucket on the first
 * (its own path, with the arguments {@link RedisStore} sends) and the same bucket next to an open
 * pause gate on the second (which takes the general path: the gate admits and takes nothing), at
 * the same time, and wants the same four numbers, the same stored state and the same expiry.
 *
 * <p>The states are the ones a key can hold: none, the bucket's own (with its tag: a whole arrival
 * time around now or far beyond a full bucket, or one with a remainder in 1/n µs of this n or
 * another), a state of another node's limit, the bucket's own and another's (in either order: a
 * value that merely ends with the bucket's tag is not its own state alone), one without a tag
 * (of an earlier build: whole, with a remainder, or {@code <tat>:<frac>}), several without tags,
 * one past 2^53, a sorted set, text.
 * With Redis' clock the fast call reads {@code TIME} and the general one is given that time; with
 * the test's clock both are given one.
 */
class BucketScriptPathsIT extends OwnRedisProperties {

    private static final byte[] SHA = RedisStore.SHA1.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SCRIPT = RedisStore.SCRIPT.getBytes(StandardCharsets.UTF_8);

    /** A stored state: kind, and the numbers it is made of (offsets from now in µs). */
    record Stored(String kind, long offset, long frac, long unit, long second) {

        /** Writes it, without expiry, at {@code now}, for the lone bucket {@code b} (whose tag "own" states carry). */
        void write(String key, long now, Bucket b) {
            String own = RedisStore.tag(b.request().limits().get(0));
            String other = "~d.dpmo.b"; // another node's limit: capacity 3, a token every 63,194 µs
            switch (kind) {
                case "none" -> { }
                case "own" -> redis.command("SET", key, (now + offset) + own);
                case "own-frac" -> redis.command("SET", key, (now + offset) + ":" + frac + ":" + unit + own);
                case "foreign" -> redis.command("SET", key, (now + offset) + other);
                case "own+foreign" -> redis.command("SET", key, (now + offset) + own + "," + (now + second) + other);
                case "foreign+own" -> redis.command("SET", key, (now + second) + other + "," + (now + offset) + own);
                case "tat" -> redis.command("SET", key, Long.toString(now + offset));
                case "frac" -> redis.command("SET", key, (now + offset) + ":" + frac + ":" + unit);
                case "old" -> redis.command("SET", key, (now + offset) + ":" + frac);
                case "several" -> redis.command("SET", key, (now + offset) + "," + (now + second));
                case "huge" -> redis.command("SET", key, "99999999999999999999");
                case "zero-led" -> redis.command("SET", key, "0" + (now + offset));
                case "zset" -> redis.command("ZADD", key, "1", "m");
                case "text" -> redis.command("SET", key, "x" + offset);
                default -> throw new IllegalArgumentException(kind);
            }
        }
    }

    /** One bucket: capacity, one token per p/n µs, cost, enforcing or shadow. */
    record Bucket(long capacity, long p, long n, long cost, boolean enforcing) {

        long fullMicros() {
            return capacity * p / n;
        }

        List<byte[]> args(String clock) {
            return bytes(clock, "", enforcing ? "1" : "0", "b", Long.toString(cost), "1",
                    Long.toString(capacity), Long.toString(p), Long.toString(n));
        }

        BucketRequest.Take request() {
            return BucketRequest.take("unused", List.of(new Limit(capacity, n, p, p, "test")), cost, enforcing);
        }

        /** The arguments RedisStore sends for this lone bucket: the short form when it serves it. */
        List<byte[]> loneArgs(String clock) {
            List<String> shortForm = RedisStore.shortArguments(request());
            if (shortForm == null) {
                return args(clock);
            }
            List<String> a = new ArrayList<>(shortForm);
            if (!clock.isEmpty()) {
                a.add(clock);
            }
            return bytes(a.toArray(new String[0]));
        }
    }

    record Case(Bucket bucket, Stored stored, boolean redisClock) {
    }

    private static final List<String> PATHS = List.of("short form", "n = 1, cost > capacity", "n > 1");
    private static final List<String> DECISIONS = List.of("admitted", "refused, capped and written", "refused");
    private static final List<String> KINDS = List.of("none", "own", "own-frac", "foreign", "own+foreign", "foreign+own",
            "tat", "frac", "old", "several", "huge", "zero-led", "zset", "text");

    @Test
    void theLoneBucketsPathDecidesAsTheGeneralPath() {
        Tally tally = new Tally();
        qt(400).forAll(cases()).checkAssert(c -> theLoneBucketsPathDecidesAsTheGeneralPath(c, tally));
        System.out.println("[BucketScriptPathsIT] " + tally);
        // each path the script takes, and each state a key can hold, was met
        for (String path : PATHS) {
            tally.reached("path: " + path);
        }
        for (String kind : KINDS) {
            tally.reached("stored: " + kind);
        }
    }

    /** Counts the example under {@code prefix: value} for each of the values, as reaching it when it is {@code value}. */
    private static void collect(Tally tally, String prefix, List<String> values, String value) {
        for (String v : values) {
            tally.count(prefix + ": " + v, v.equals(value));
        }
    }

    private void theLoneBucketsPathDecidesAsTheGeneralPath(Case c, Tally tally) {
        redis.command("FLUSHALL");
        String fast = "t:{a}:p";
        String general = "t:{b}:p";
        String gate = "t:{b}:p:p";
        String[] time = redis.command("TIME").split("\n");
        long base = Long.parseLong(time[0]) * 1_000_000L + Long.parseLong(time[1]);
        c.stored().write(fast, base, c.bucket());
        c.stored().write(general, base, c.bucket());
        Bucket b = c.bucket();

        long started = System.nanoTime();
        boolean shortForm = RedisStore.shortArguments(b.request()) != null;
        assertEquals(b.n() == 1 && b.cost() <= b.capacity(), shortForm, "the short form serves n = 1 and cost <= capacity, and only it");
        long[] reply = port.evalsha(SHA, SCRIPT, bytes(fast), b.loneArgs(c.redisClock() ? "" : Long.toString(base)));
        long now = BucketReply.time(reply);
        long[] one = reply;
        if (shortForm) {
            one = Arrays.copyOf(Replies.flat(BucketReply.decodeShort(b.request(), reply)), 5);
            one[4] = now;
        }
        if (!c.redisClock()) {
            assertEquals(base, now);
        }
        List<byte[]> generalArgs = new ArrayList<>(b.args(Long.toString(now)));
        generalArgs.addAll(bytes("1", "g", "1", "1", "5", "0", "0"));
        long[] two = port.evalsha(SHA, SCRIPT, bytes(general, gate), generalArgs);
        String fastValue = redis.command("GET", fast);
        long fastTtl = Long.parseLong(redis.command("PTTL", fast));
        long elapsedMs = (System.nanoTime() - started) / 1_000_000 + 1;

        assertEquals(5, one.length);
        assertEquals(9, two.length);
        if (shortForm) {
            assertEquals(two[3] == 0 ? 2 : 3, reply.length, "admitted: after, now; refused: debt, retry, now");
        }
        assertArrayEquals(Arrays.copyOf(two, 4), Arrays.copyOf(one, 4), "remaining, next, until full, retry");
        assertEquals(now, two[8]);
        assertEquals(5, two[4], "the gate admits");

        String generalValue = redis.command("GET", general);
        long generalTtl = Long.parseLong(redis.command("PTTL", general));
        boolean wrote = generalTtl >= 0; // written states expire; the states written above do not
        long untilFull = one[2];
        if (wrote) {
            // the key expires when the last of its states is full: the other node's state it kept too
            for (String state : generalValue.split(",")) {
                String[] numbers = state.replaceAll("~.*", "").split(":");
                long tat = Long.parseLong(numbers[0]) + (numbers.length > 1 && Long.parseLong(numbers[1]) > 0 ? 1 : 0);
                untilFull = Math.max(untilFull, tat - now);
            }
        }
        long wantedTtl = Math.max(c.redisClock() ? 1 : 60_000, (untilFull + 999) / 1000);
        if (wrote) {
            assertTrue(generalValue.matches("\\d+(:\\d+:\\d+)?" + RedisStore.tag(b.request().limits().get(0))
                            + "(,\\d+(:\\d+:\\d+)?~[a-z]+\\.[a-z]+\\.[a-z]+)?"),
                    "the state the general path wrote: its own with its tag, and the other node's kept: " + generalValue);
            if (fastTtl == -2) {
                // the fast path wrote too, with an expiry too short to see (a full bucket: 1 ms)
                assertTrue(wantedTtl <= elapsedMs, "expired after " + elapsedMs + " ms, wanted " + wantedTtl);
            } else {
                assertEquals(generalValue, fastValue);
                assertTrue(fastTtl <= wantedTtl && fastTtl >= wantedTtl - elapsedMs,
                        "expiry " + fastTtl + " ms, wanted " + wantedTtl + " ms less at most " + elapsedMs);
            }
        } else {
            assertTrue(generalTtl == -1 || generalTtl == -2, "a state not written keeps no expiry: " + generalTtl);
            assertEquals(generalTtl, fastTtl);
            assertEquals(generalValue, fastValue);
        }
        collect(tally, "path", PATHS, shortForm ? "short form" : b.n() == 1 ? "n = 1, cost > capacity" : "n > 1");
        collect(tally, "decision", DECISIONS, one[3] == 0 ? "admitted" : wrote ? "refused, capped and written" : "refused");
        collect(tally, "stored", KINDS, c.stored().kind());
    }

    static Gen<Case> cases() {
        Gen<Long> p = of(1L, 1_000L, 100_000L, 1_000_000L, 999_999_937L, 100_000_000_000L);
        Gen<Long> n = frequency(weight(6, just(1L)), weight(1, just(3L)), weight(1, just(7L)));
        Gen<Bucket> bucket = longs(1, 40).zip(p, n, longs(0, 42), bools(),
                (cap, pp, nn, cost, enforcing) -> new Bucket(cap, pp, nn, Math.min(cost, cap + 2), enforcing));
        return bucket.flatMap(b -> stored(b).zip(bools(), (s, clock) -> new Case(b, s, clock)));
    }

    private static Gen<Stored> stored(Bucket b) {
        long full = b.fullMicros();
        Gen<Long> offset = frequency(
                weight(2, longs(-2, 2)),
                weight(4, longs(-full - 1_000_000, full)),
                weight(2, longs(full - b.p() / b.n() - 2, full + 2)),
                weight(1, longs(full, 3 * full + 10_000_000)));
        Gen<String> kind = frequency(
                weight(4, just("none")), weight(8, just("own")), weight(2, just("own-frac")),
                weight(2, just("foreign")), weight(2, just("own+foreign")), weight(2, just("foreign+own")),
                weight(3, just("tat")),
                weight(3, just("frac")), weight(1, just("old")),
                weight(1, just("several")), weight(1, just("huge")),
                weight(1, just("zero-led")), weight(1, just("zset")),
                weight(1, just("text")));
        return kind.zip(offset, longs(0, 20), of(1L, 2L, 3L, 7L), offset, Stored::new);
    }

    private static List<byte[]> bytes(String... values) {
        List<byte[]> out = new ArrayList<>(values.length);
        for (String v : values) {
            out.add(v.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }
}
