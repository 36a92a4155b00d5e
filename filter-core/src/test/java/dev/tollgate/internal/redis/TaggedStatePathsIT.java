package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Issue 28: a lone one-limit token bucket reads states that nodes with other limits wrote on
 * paths of its own: the short form (n = 1, its straight path and the one-key path it goes on to)
 * and the general form's one-key path (another n), each apart from the general path. Whatever
 * limits wrote the state (one to three), with tags or without (as builds before tags wrote it),
 * and whether one of them is the lone bucket's own limit, both paths decide as the general path
 * does: the same four numbers, the same state written (or none: the other nodes' states kept and
 * charged alike). The states are written by the script itself, one to three times, at the test's
 * times.
 */
class TaggedStatePathsIT extends OwnRedisProperties {

    private static final byte[] SHA = RedisStore.SHA1.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SCRIPT = RedisStore.SCRIPT.getBytes(StandardCharsets.UTF_8);
    private static final long BASE = 1_790_000_000_000_000L;

    /** One limit: capacity, n tokens every p µs. */
    record Spec(long capacity, long p, long n) {
        Limit limit() {
            return new Limit(capacity, n, p, p, "test");
        }

        List<String> args() {
            return List.of(Long.toString(capacity), Long.toString(p), Long.toString(n));
        }
    }

    /** One write of the other node: its limits, its cost, when (µs after the start). */
    record Write(List<Spec> limits, long cost, long at) {
    }

    /**
     * The lone bucket (its limit, cost, enforcing), what was written before it (untagged: tags
     * stripped, as earlier versions wrote states), and when it reads (µs after the last write).
     */
    record Case(Spec own, long cost, boolean enforcing, List<Write> writes, boolean untagged, long readAfter) {
    }

    @Test
    void theLoneBucketsPathsReadStatesOfSeveralLimitsAsTheGeneralPath() {
        qt(300).forAll(cases()).checkAssert(this::decidesAsTheGeneralPath);
    }

    private void decidesAsTheGeneralPath(Case c) {
        redis.command("FLUSHALL");
        String writer = "t:{w}:p";
        long now = BASE;
        for (Write w : c.writes()) {
            now += w.at();
            List<String> args = new ArrayList<>(List.of(Long.toString(now), "", "1", "b", Long.toString(w.cost()),
                    Integer.toString(w.limits().size())));
            for (Spec s : w.limits()) {
                args.addAll(s.args());
            }
            port.evalsha(SHA, SCRIPT, bytes(writer), bytes(args.toArray(new String[0])));
        }
        String stored = redis.command("GET", writer);
        if (stored == null || stored.isEmpty()) {
            return; // nothing was written: BucketScriptPathsIT covers an absent key
        }
        if (c.untagged()) {
            stored = stored.replaceAll("~[a-z.]+", "");
        }
        String fast = "t:{a}:p";
        String general = "t:{b}:p";
        String gate = "t:{b}:p:p";
        redis.command("SET", fast, stored);
        redis.command("SET", general, stored);
        now += c.readAfter();

        BucketRequest.Take request = BucketRequest.take("unused", List.of(c.own().limit()), c.cost(), c.enforcing());
        List<String> generalForm = new ArrayList<>(List.of(Long.toString(now), "", c.enforcing() ? "1" : "0", "b",
                Long.toString(c.cost()), "1"));
        generalForm.addAll(c.own().args());
        List<String> shortForm = RedisStore.shortArguments(request);
        long[] one;
        if (shortForm != null) {
            List<String> a = new ArrayList<>(shortForm);
            a.add(Long.toString(now));
            long[] reply = port.evalsha(SHA, SCRIPT, bytes(fast), bytes(a.toArray(new String[0])));
            one = Arrays.copyOf(Replies.flat(BucketReply.decodeShort(request, reply)), 5);
            one[4] = BucketReply.time(reply);
        } else {
            one = port.evalsha(SHA, SCRIPT, bytes(fast), bytes(generalForm.toArray(new String[0])));
        }
        List<String> withGate = new ArrayList<>(generalForm);
        withGate.addAll(List.of("1", "g", "1", "1", "5", "0", "0"));
        long[] two = port.evalsha(SHA, SCRIPT, bytes(general, gate), bytes(withGate.toArray(new String[0])));

        String context = (shortForm != null ? "short form" : "one-key path") + ", stored " + stored + " read at " + now;
        assertArrayEquals(Arrays.copyOf(two, 4), Arrays.copyOf(one, 4), "remaining, next, until full, retry: " + context);
        assertEquals(5, two[4], "the gate admits");
        assertEquals(redis.command("GET", general), redis.command("GET", fast), "the state left: " + context);
        assertEquals(Long.parseLong(redis.command("PTTL", general)) >= 0, Long.parseLong(redis.command("PTTL", fast)) >= 0,
                "written by both or by neither: " + context);
    }

    static Gen<Spec> specs() {
        Gen<Long> p = of(1L, 1_000L, 100_000L, 1_000_000L, 999_999_937L);
        Gen<Long> n = of(1L, 1L, 1L, 3L, 7L);
        return ints(1, 20).zip(p, n, (capacity, pp, nn) -> new Spec(capacity, pp, nn));
    }

    static Gen<Case> cases() {
        Gen<Spec> own = specs();
        return own.flatMap(o -> {
            // the other node's limits: two or three, each the lone bucket's own limit or another
            Gen<Spec> any = of(true, false, false).zip(specs(), (mine, other) -> mine ? o : other);
            Gen<List<Spec>> limits = lists(any, 1, 3);
            Gen<Write> write = limits.zip(longs(1, 3), longs(0, 5_000_000),
                    (ls, cost, at) -> new Write(ls, Math.min(cost, ls.stream().mapToLong(Spec::capacity).min().orElse(1)), at));
            Gen<List<Write>> writes = lists(write, 1, 3);
            Gen<Long> readAfter = of(0L, 1L, 999L, 1_000_000L, 60_000_000L).mix(longs(0, 200_000_000L), 50);
            return longs(0, o.capacity() + 2).zip(bools(), writes, bools(), readAfter,
                    (cost, enforcing, ws, untagged, after) -> new Case(o, cost, enforcing, ws, untagged, after));
        });
    }

    private static List<byte[]> bytes(String... values) {
        List<byte[]> out = new ArrayList<>(values.length);
        for (String v : values) {
            out.add(v.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }
}
