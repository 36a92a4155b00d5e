package dev.tollgate.internal.redis;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.identity.BucketKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Token buckets and sliding logs in Redis: every decision is one {@code EVALSHA} of
 * {@code bucket.lua}, which reads the clock from Redis {@code TIME}, so application servers with
 * skewed clocks agree.
 *
 * <p>The script is loaded with {@code SCRIPT LOAD} at start; when Redis has lost it (restart,
 * failover) the call that meets {@code NOSCRIPT} sends it whole with {@code EVAL}, which caches it
 * again, within the same time budget, and no client sees an error.
 *
 * <p>With Redis Cluster, the keys of one request share a slot when their clients do (the client
 * is the hash tag), and then the call is as atomic as anywhere. When they do not (a policy by
 * address and one by user, say), every slot is first asked without taking (the script still
 * stores its normalisations, such as a debt capped after the burst shrank, so that the refusal's
 * Retry-After holds); only if all admit does each take, and if a slot refuses meanwhile the ones
 * that took are refunded ({@code refund.lua}), so a refused request still takes nothing. These
 * calls share the request's one time budget ({@link RedisPort#deadline}).
 *
 * <p>While a slot is migrated, Redis refuses a call of several keys that are not all on one of its
 * two masters ({@code TRYAGAIN}; for a key never written, until the migration ends). Once the port
 * gives up trying again ({@link RedisPort.SplitKeysException}), the request is decided key by key
 * through the same path, a group per key, in what is left of that call's budget (a call of one
 * key is never refused so); refunds and {@code release.lua} fall back to one call per key the
 * same way. Exact as across slots, not atomic. If the budget is spent first, the split is thrown
 * again: the request has no verdict, and Redis was healthy.
 *
 * <p>Keys name their algorithm ({@link BucketKeys}); a key of the other type, left by an earlier
 * version, is treated by the script as absent rather than failing the call, so an upgrade or an
 * algorithm switch never opens the circuit.
 *
 * <p>Calendar windows are the one argument that comes from the node's clock (only Java knows time
 * zones): the script counts in the window that holds Redis' time, and refuses windows none of
 * which does; the call is then made again with windows around Redis' time, and this node's clock
 * is corrected by the difference from then on ({@link #nodeMicros}).
 *
 * <p>Longer than most classes on purpose (about 660 lines): it is the one place that turns a
 * bucket request of any algorithm into the scripts' arguments and back, and splits a Cluster
 * request by slot; split, the argument layout of {@code bucket.lua}, {@code refund.lua} and
 * {@code release.lua} would be written in two places. {@code pause.lua} sets a pause gate's end.
 *
 * <p>Thread-safe.
 */
public final class RedisStore implements BucketStore {

    /** How a token-bucket limit's tag is read back: the start of the bucket and refund scripts. */
    private static final String TAGS = readScript("tags.lua");
    /** The bucket script, read from the class path once. */
    public static final String SCRIPT = TAGS + readScript("bucket.lua");
    /** Its SHA-1, as Redis names it. */
    public static final String SHA1 = sha1(SCRIPT);
    static final String REFUND = TAGS + readScript("refund.lua");
    static final String RELEASE = readScript("release.lua");
    static final String PAUSE = readScript("pause.lua");
    private static final byte[] CLIENT_BYTES = readScript("client.lua").getBytes(StandardCharsets.UTF_8);
    private static final byte[] PAUSE_BYTES = PAUSE.getBytes(StandardCharsets.UTF_8);
    private static final byte[] RELEASE_BYTES = RELEASE.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SCRIPT_BYTES = SCRIPT.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SHA1_BYTES = SHA1.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REFUND_BYTES = REFUND.getBytes(StandardCharsets.UTF_8);
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] DRY = "dry".getBytes(StandardCharsets.US_ASCII);

    /** The arguments of one bucket that do not change from request to request, encoded once. */
    private record Shape(List<Limit> limits, long cost, boolean enforcing, Algorithm algorithm) {
    }

    private final ConcurrentHashMap<Shape, byte[][]> shapes = new ConcurrentHashMap<>();
    /** The same for the script's short form ({@link #shortArguments}), for the shapes it serves. */
    private final ConcurrentHashMap<Shape, byte[][]> shortShapes = new ConcurrentHashMap<>();

    private final RedisPort redis;
    private final LongSupplier clockOverride;
    /** This node's own clock in µs: only to compute calendar windows near Redis' time ({@link #nodeMicros}). */
    private final LongSupplier nodeClock;
    /**
     * How far Redis' time was ahead of {@link #nodeClock} when the script last refused calendar
     * windows computed on this node (negative: behind); 0 until then. Racing writes are alike.
     */
    private volatile long redisAheadMicros;

    /** A store that takes the time from Redis {@code TIME}. */
    public RedisStore(RedisPort redis) {
        this(redis, null, RedisStore::wallMicros);
    }

    /**
     * For tests only: a store whose script takes the time from {@code clockOverride} instead of
     * Redis {@code TIME}, so a test can move time without sleeping; the node's clock is the same.
     */
    RedisStore(RedisPort redis, LongSupplier clockOverride) {
        this(redis, clockOverride, clockOverride);
    }

    /**
     * For tests only: {@code clockOverride} as above ({@code null}: Redis {@code TIME}), on a node
     * whose own clock is {@code nodeClock}, which may be far from it.
     */
    RedisStore(RedisPort redis, LongSupplier clockOverride, LongSupplier nodeClock) {
        this.redis = redis;
        this.clockOverride = clockOverride;
        this.nodeClock = nodeClock;
    }

    /**
     * A store that takes the time from Redis {@code TIME}, on a node whose own clock (µs since the
     * epoch) is {@code nodeClock} instead of the system's: the calendar windows this node computes
     * start from it (a harness gives nodes clocks hours apart).
     */
    public static RedisStore onNodeClock(RedisPort redis, LongSupplier nodeClock) {
        return new RedisStore(redis, null, nodeClock);
    }

    private static long wallMicros() {
        return System.currentTimeMillis() * 1000L;
    }

    /** Loads the script; call once at start. Failure is not fatal: a later call loads it. */
    public void load(String routingKey) {
        String sha = redis.scriptLoad(SCRIPT, routingKey);
        if (!SHA1.equals(sha)) {
            throw new IllegalStateException("Redis named the bucket script " + sha + ", expected " + SHA1);
        }
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public List<BucketReply> acquire(List<BucketRequest> requests) {
        if (requests.size() > 1 && redis.clustered()) {
            Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
            for (int i = 0; i < requests.size(); i++) {
                bySlot.computeIfAbsent(redis.slot(requests.get(i).key()), s -> new ArrayList<>()).add(i);
            }
            if (bySlot.size() > 1) {
                return acquireAcrossSlots(requests, new ArrayList<>(bySlot.values()), redis.deadline(), null);
            }
            try {
                return decode(requests, false, call(requests, false));
            } catch (RedisPort.SplitKeysException e) {
                // the slot is being migrated and Redis will not run its keys together: one by one,
                // in what is left of the same budget
                return acquireAcrossSlots(requests, singletons(requests.size()), e.deadline(), e);
            }
        }
        return decode(requests, false, call(requests, false));
    }

    /** The script's reply to {@link #call}, read as the form it was sent in. */
    private static List<BucketReply> decode(List<BucketRequest> requests, boolean dry, long[] reply) {
        BucketRequest.Take one = shortForm(requests, dry);
        return one != null ? BucketReply.decodeShort(one, reply) : BucketReply.decode(requests, reply);
    }

    /**
     * The one bucket of a call that goes in the script's short form, or {@code null}: one bucket
     * that {@link #shortArguments} serves, and not dry.
     */
    private static BucketRequest.Take shortForm(List<BucketRequest> requests, boolean dry) {
        return !dry && requests.size() == 1 && requests.get(0) instanceof BucketRequest.Take t && servesShort(t) ? t : null;
    }

    /**
     * Asks every group (a slot's keys) first, then takes group by group, refunding if a group
     * refuses meanwhile; every call within one budget, which ends at {@code deadline}. A group whose
     * keys a slot migration has split between two masters ({@link RedisPort.SplitKeysException}) is
     * asked, taken or refunded key by key instead. If the budget is spent first, the request has no
     * verdict: the split that sent it here ({@code split}, or one met on the way) is thrown, else
     * the port's {@link RedisPort.BudgetSpentException}.
     */
    private List<BucketReply> acquireAcrossSlots(List<BucketRequest> requests, List<List<Integer>> groups, long deadline,
                                                 RedisPort.SplitKeysException split) {
        RedisPort.SplitKeysException[] met = {split};
        try {
            return acrossSlots(requests, groups, deadline, met);
        } catch (RedisPort.BudgetSpentException e) {
            if (met[0] != null) {
                throw met[0]; // Redis is healthy: it only kept the keys apart for longer than the budget
            }
            throw e;
        }
    }

    private List<BucketReply> acrossSlots(List<BucketRequest> requests, List<List<Integer>> groups, long deadline,
                                          RedisPort.SplitKeysException[] met) {
        BucketReply[] out = new BucketReply[requests.size()];
        boolean admitted = true;
        List<List<Integer>> asked = new ArrayList<>(groups.size());
        Deque<List<Integer>> todo = new ArrayDeque<>(groups);
        while (!todo.isEmpty()) {
            List<Integer> g = todo.poll();
            List<BucketRequest> group = pick(requests, g);
            long[] reply;
            try {
                reply = call(group, true, deadline);
            } catch (RedisPort.SplitKeysException e) {
                met[0] = splitOrThrow(e, g, todo);
                continue;
            }
            List<BucketReply> dry = decode(group, true, reply);
            place(out, dry, g);
            admitted &= BucketReply.enforcingAdmit(group, dry);
            asked.add(g);
        }
        if (!admitted) {
            return List.of(out);
        }
        List<List<BucketRequest>> taken = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        todo.addAll(asked);
        while (!todo.isEmpty()) {
            List<Integer> g = todo.poll();
            List<BucketRequest> group = pick(requests, g);
            long[] reply;
            try {
                reply = call(group, false, deadline);
            } catch (RedisPort.SplitKeysException e) {
                met[0] = splitOrThrow(e, g, todo);
                continue;
            }
            List<BucketReply> decoded = decode(group, false, reply);
            place(out, decoded, g);
            if (!BucketReply.enforcingAdmit(group, decoded)) {
                for (int t = 0; t < taken.size(); t++) {
                    refund(taken.get(t), times.get(t), deadline);
                }
                return List.of(out);
            }
            taken.add(took(group, decoded));
            times.add(BucketReply.time(reply));
        }
        return List.of(out);
    }

    /**
     * The buckets of a group that took: each whose own limits admitted. The group's enforcing
     * buckets all did (else it refused); a shadow bucket takes only when its own limits admit, and
     * one that refused took nothing, so a refund must give it nothing back (issue 28).
     */
    private static List<BucketRequest> took(List<BucketRequest> group, List<BucketReply> replies) {
        List<BucketRequest> out = new ArrayList<>(group.size());
        for (int k = 0; k < group.size(); k++) {
            if (replies.get(k).admits()) {
                out.add(group.get(k));
            }
        }
        return out;
    }

    /**
     * A group Redis would not run together: its keys, one group each, are put first in
     * {@code todo}, in their order. A single key cannot be split further: thrown again.
     */
    private static RedisPort.SplitKeysException splitOrThrow(RedisPort.SplitKeysException e, List<Integer> group,
                                                             Deque<List<Integer>> todo) {
        if (group.size() < 2) {
            throw e;
        }
        for (int k = group.size() - 1; k >= 0; k--) {
            todo.addFirst(List.of(group.get(k)));
        }
        return e;
    }

    private static List<List<Integer>> singletons(int n) {
        List<List<Integer>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(List.of(i));
        }
        return out;
    }

    private static List<BucketRequest> pick(List<BucketRequest> requests, List<Integer> indexes) {
        List<BucketRequest> out = new ArrayList<>(indexes.size());
        for (int i : indexes) {
            out.add(requests.get(i));
        }
        return out;
    }

    private static void place(BucketReply[] out, List<BucketReply> replies, List<Integer> group) {
        for (int k = 0; k < group.size(); k++) {
            out[group.get(k)] = replies.get(k);
        }
    }

    /**
     * Gives back what {@code requests} (one slot's) took at {@code time}, within the budget that
     * ends at {@code deadline}; key by key if a slot migration keeps them apart (refund.lua treats
     * each key on its own).
     */
    private void refund(List<BucketRequest> requests, long time, long deadline) {
        if (requests.isEmpty()) {
            return;
        }
        try {
            redis.eval(REFUND_BYTES, refundKeys(requests), refundArguments(requests, time), deadline);
        } catch (RedisPort.SplitKeysException e) {
            if (requests.size() < 2) {
                throw e;
            }
            for (BucketRequest r : requests) {
                List<BucketRequest> one = List.of(r);
                redis.eval(REFUND_BYTES, refundKeys(one), refundArguments(one, time), deadline);
            }
        }
    }

    private static List<byte[]> refundKeys(List<BucketRequest> requests) {
        List<byte[]> keys = new ArrayList<>(requests.size());
        for (BucketRequest r : requests) {
            keys.add(bytes(r.key()));
        }
        return keys;
    }

    /** refund.lua's arguments: calendar windows around the decision's own time, in Redis' clock. */
    private List<byte[]> refundArguments(List<BucketRequest> requests, long time) {
        List<byte[]> args = new ArrayList<>();
        args.add(bytes(Long.toString(time)));
        addArguments(requests, new ArrayList<>(requests.size()), args, time);
        return args;
    }

    /** One call of the bucket script, its reply as the script gives it ({@link #decode} reads it). */
    private long[] call(List<BucketRequest> requests, boolean dry) {
        return call(requests, dry, null);
    }

    /** {@link #call(List, boolean)} within the budget that ends at {@code deadline}, or one of its own if {@code null}. */
    private long[] call(List<BucketRequest> requests, boolean dry, Long deadline) {
        BucketRequest.Take r = shortForm(requests, dry);
        if (r != null) {
            byte[][] a = shortShape(r);
            List<byte[]> args = clockOverride == null ? List.of(a[0], a[1], a[2])
                    : List.of(a[0], a[1], a[2], bytes(Long.toString(clockOverride.getAsLong())));
            return evalsha(List.of(bytes(r.key())), args, deadline);
        }
        boolean calendar = false;
        for (int i = 0; i < requests.size() && !calendar; i++) {
            calendar = isCalendar(requests.get(i));
        }
        if (calendar && deadline == null) {
            deadline = redis.deadline(); // a call asked again shares the first one's budget
        }
        byte[] override = clockOverride == null ? EMPTY : bytes(Long.toString(clockOverride.getAsLong()));
        List<byte[]> keys = new ArrayList<>(requests.size());
        List<byte[]> args = generalArguments(requests, dry, override, keys, calendar ? nodeMicros() : 0);
        long[] reply = evalsha(keys, args, deadline);
        if (calendar && windowsRefused(reply)) {
            // The windows held no window of Redis' time: this node's clock is off by more than one
            // (bucket.lua took nothing). Computed again around Redis' own time, which the reply says;
            // and from now on around this node's clock set right by the difference.
            long redisNow = reply[1];
            redisAheadMicros = redisNow - nodeClock.getAsLong();
            keys.clear();
            reply = evalsha(keys, generalArguments(requests, dry, override, keys, redisNow), deadline);
            if (windowsRefused(reply)) {
                throw new IllegalStateException("the bucket script refused calendar windows computed around its own time "
                        + redisNow + " µs, and now answers " + Arrays.toString(reply) + ": its clock moved by more than"
                        + " a window within one request");
            }
        }
        return reply;
    }

    /** The general form's arguments, with calendar windows around {@code aroundMicros}; fills {@code keys}. */
    private List<byte[]> generalArguments(List<BucketRequest> requests, boolean dry, byte[] override, List<byte[]> keys,
                                          long aroundMicros) {
        List<byte[]> args = new ArrayList<>(2 + requests.size() * 7);
        args.add(override);
        args.add(dry ? DRY : EMPTY);
        addArguments(requests, keys, args, aroundMicros);
        return args;
    }

    /**
     * Whether the script refused the calendar windows it was sent ({@code { -1, now }}: bucket.lua,
     * "Reply"), which a general reply, at least five integers, never is.
     */
    private static boolean windowsRefused(long[] reply) {
        return reply != null && reply.length == 2 && reply[0] == -1;
    }

    /** NOSCRIPT is answered by sending the script whole, in the same budget; EVAL caches it again. */
    private long[] evalsha(List<byte[]> keys, List<byte[]> args, Long deadline) {
        return deadline == null ? redis.evalsha(SHA1_BYTES, SCRIPT_BYTES, keys, args)
                : redis.evalsha(SHA1_BYTES, SCRIPT_BYTES, keys, args, deadline);
    }

    /** Keys and the per-key arguments both scripts share. */
    private void addArguments(List<BucketRequest> requests, List<byte[]> keys, List<byte[]> args, long nowMicros) {
        for (int i = 0; i < requests.size(); i++) {
            BucketRequest r = requests.get(i);
            keys.add(bytes(r.key()));
            if (isCalendar(r)) {
                // the window boundaries move with time: encoded on every call
                for (String a : bucketArguments(r, nowMicros)) {
                    args.add(bytes(a));
                }
                continue;
            }
            for (byte[] a : shape(r)) {
                args.add(a);
            }
        }
    }

    /**
     * Where this node computes calendar windows: its own clock, set right by how far Redis' time
     * was from it when the script last refused windows ({@link #redisAheadMicros}). The script
     * still decides by Redis {@code TIME}, picks the window that holds it among three, and refuses
     * windows none of which does, so a node's clock never chooses a window (bucket.lua, ARGV).
     */
    private long nodeMicros() {
        return nodeClock.getAsLong() + redisAheadMicros;
    }

    private static boolean isCalendar(BucketRequest r) {
        return r instanceof BucketRequest.Take t && t.algorithm() == Algorithm.CALENDAR;
    }

    /** A bucket's constant arguments, encoded the first time its shape is seen. */
    private byte[][] shape(BucketRequest request) {
        if (!(request instanceof BucketRequest.Take r)) {
            return encode(bucketArguments(request)); // the lease id changes every call; a gate is rare
        }
        Shape key = new Shape(r.limits(), r.cost(), r.enforcing(), r.algorithm());
        byte[][] cached = shapes.get(key);
        if (cached != null) {
            return cached;
        }
        byte[][] made = encode(bucketArguments(r));
        if (shapes.size() > 10_000) {
            shapes.clear(); // shapes come from the configuration: this bound is only a guard
        }
        shapes.put(key, made);
        return made;
    }

    /** The short form's arguments of a bucket it serves, encoded the first time its shape is seen. */
    private byte[][] shortShape(BucketRequest.Take r) {
        Shape key = new Shape(r.limits(), r.cost(), r.enforcing(), r.algorithm());
        byte[][] cached = shortShapes.get(key);
        if (cached != null) {
            return cached;
        }
        byte[][] made = encode(shortArguments(r));
        if (shortShapes.size() > 10_000) {
            shortShapes.clear(); // as in shape()
        }
        shortShapes.put(key, made);
        return made;
    }

    /**
     * The script's short form (bucket.lua's first path), or {@code null} for a bucket it does not
     * serve: a token bucket of one limit whose tokens come one per p µs (n = 1), neither a lease
     * nor a gate, whose cost is at most its capacity, sent as {@code full = capacity * p} (at most
     * 2^52, {@link Limit}), {@code want = cost * p} and the limit's {@link #tag}: the script reads
     * full only when the key holds a state, as a call on a full bucket takes, and its straight path
     * serves a key that holds exactly one state with this tag. The script tells this form from the
     * general one by its length: fewer than five arguments (the test's time may follow as a
     * fourth), where the general form has at least nine. Enforcing or shadow alike: a lone bucket
     * takes when its own limit admits. Made once per bucket shape ({@code shortShape}), not per
     * call. Public for tools that call the script themselves (the benchmarks).
     */
    public static List<String> shortArguments(BucketRequest request) {
        if (!(request instanceof BucketRequest.Take r) || !servesShort(r)) {
            return null;
        }
        Limit l = r.limits().get(0);
        return List.of(Long.toString(l.capacity() * l.refillPeriodMicros()), Long.toString(r.cost() * l.refillPeriodMicros()),
                tag(l));
    }

    /**
     * The tag {@code bucket.lua} writes after a token-bucket limit's state, naming the limit:
     * {@code ~<capacity>.<p>.<n>} (it refills n tokens every p µs), each number in base 26 in
     * letters, {@code a} for 0. No digit, so the pattern every version reads states with,
     * {@code (%d+):?(%d*):?(%d*)}, counts them right; and a node of other limits reads from it how
     * to charge the state ({@code bucket.lua}, "Token bucket states").
     */
    public static String tag(Limit limit) {
        return "~" + letters(limit.capacity()) + "." + letters(limit.refillPeriodMicros()) + "." + letters(limit.refillTokens());
    }

    /** A whole number {@code x >= 0} in base 26, {@code a} for 0, as {@code bucket.lua} writes it. */
    static String letters(long x) {
        StringBuilder s = new StringBuilder();
        do {
            s.append((char) ('a' + x % 26));
            x /= 26;
        } while (x > 0);
        return s.reverse().toString();
    }

    /**
     * Whether the script's short form serves this bucket ({@link #shortArguments}); asked on every
     * call, so it makes nothing.
     */
    private static boolean servesShort(BucketRequest.Take r) {
        if (r.algorithm() != Algorithm.TOKEN_BUCKET || r.limits().size() != 1) {
            return false;
        }
        Limit l = r.limits().get(0);
        return !l.isCalendar() && l.refillTokens() == 1 && r.cost() >= 0 && r.cost() <= l.capacity();
    }

    /**
     * The arguments of one bucket as the script reads them after ARGV[1] and ARGV[2]: enforcing,
     * algorithm, cost, number of limits, then a triple per limit. Public for tools that call the
     * script themselves (the benchmarks' {@code redis-benchmark} run).
     */
    public static List<String> bucketArguments(BucketRequest r) {
        return bucketArguments(r, System.currentTimeMillis() * 1000L);
    }

    /**
     * The same, for a calendar quota with the window boundaries around {@code nowMicros} on this
     * node's clock: count and four boundaries per limit instead of a triple.
     */
    static List<String> bucketArguments(BucketRequest request, long nowMicros) {
        if (request instanceof BucketRequest.Lease lease) {
            Limit l = lease.limit();
            return List.of(lease.enforcing() ? "1" : "0", "i", "1", "1", Long.toString(l.capacity()),
                    Long.toString(l.windowMicros()), lease.id());
        }
        if (request instanceof BucketRequest.Gate gate) {
            return List.of(gate.enforcing() ? "1" : "0", "g", "1", "1", Long.toString(gate.shownAs().capacity()), "0", "0");
        }
        BucketRequest.Take r = (BucketRequest.Take) request;
        if (r.algorithm() == Algorithm.CALENDAR) {
            List<String> a = new ArrayList<>(4 + 5 * r.limits().size());
            a.add(r.enforcing() ? "1" : "0");
            a.add("c");
            a.add(Long.toString(r.cost()));
            a.add(Integer.toString(r.limits().size()));
            for (Limit l : r.limits()) {
                a.add(Long.toString(l.capacity()));
                for (long b : l.calendar().boundariesAround(nowMicros)) {
                    a.add(Long.toString(b));
                }
            }
            return a;
        }
        boolean log = r.algorithm() == Algorithm.SLIDING_LOG;
        List<String> a = new ArrayList<>(4 + 3 * r.limits().size());
        a.add(r.enforcing() ? "1" : "0");
        a.add(log ? "l" : "b");
        a.add(Long.toString(r.cost()));
        a.add(Integer.toString(r.limits().size()));
        for (Limit l : r.limits()) {
            a.add(Long.toString(l.capacity()));
            a.add(Long.toString(log ? l.windowMicros() : l.refillPeriodMicros()));
            a.add(log ? "1" : Long.toString(l.refillTokens()));
        }
        return a;
    }

    private static byte[][] encode(List<String> text) {
        byte[][] a = new byte[text.size()][];
        for (int i = 0; i < a.length; i++) {
            a[i] = bytes(text.get(i));
        }
        return a;
    }

    /** Gives leases back with {@code release.lua}, one call per Cluster slot. */
    @Override
    public void release(List<BucketRequest.Lease> leases) {
        Map<Integer, List<BucketRequest.Lease>> bySlot = new LinkedHashMap<>();
        boolean clustered = leases.size() > 1 && redis.clustered();
        for (BucketRequest.Lease r : leases) {
            bySlot.computeIfAbsent(clustered ? redis.slot(r.key()) : 0, s -> new ArrayList<>()).add(r);
        }
        for (List<BucketRequest.Lease> group : bySlot.values()) {
            try {
                releaseTogether(group, null);
            } catch (RedisPort.SplitKeysException e) {
                if (group.size() < 2) {
                    throw e;
                }
                // a slot migration keeps the keys apart: release.lua treats each key on its own
                for (BucketRequest.Lease r : group) {
                    releaseTogether(List.of(r), e.deadline());
                }
            }
        }
    }

    /** One call of {@code release.lua} for leases of one slot; within the budget ending at {@code deadline}, if set. */
    private void releaseTogether(List<BucketRequest.Lease> group, Long deadline) {
        List<byte[]> keys = new ArrayList<>(group.size());
        List<byte[]> ids = new ArrayList<>(group.size());
        for (BucketRequest.Lease r : group) {
            keys.add(bytes(r.key()));
            ids.add(bytes(r.id()));
        }
        if (deadline == null) {
            redis.eval(RELEASE_BYTES, keys, ids);
        } else {
            redis.eval(RELEASE_BYTES, keys, ids, deadline);
        }
    }

    /** Sets a pause with {@code pause.lua}, placed by Redis' clock (or the test's). */
    @Override
    public long pause(String gateKey, long pauseMicros) {
        if (pauseMicros < 0) {
            throw new IllegalArgumentException("a pause is at least 0 µs, got " + pauseMicros);
        }
        byte[] clock = clockOverride == null ? EMPTY : bytes(Long.toString(clockOverride.getAsLong()));
        long[] reply = redis.eval(PAUSE_BYTES, List.of(bytes(gateKey)), List.of(clock, bytes(Long.toString(pauseMicros))));
        return reply[0];
    }

    /** {@code client.lua}'s inspect: per key exists, live leases, µs to expiry; then Redis' now. */
    @Override
    public long[] describe(List<String> clientKeys) {
        return redis.eval(CLIENT_BYTES, clientKeys.stream().map(RedisStore::bytes).toList(), List.of(bytes("inspect")));
    }

    /** {@code client.lua}'s reset: deletes the keys, answers how many there were. */
    @Override
    public long delete(List<String> clientKeys) {
        return redis.eval(CLIENT_BYTES, clientKeys.stream().map(RedisStore::bytes).toList(), List.of(bytes("reset")))[0];
    }

    /**
     * Records a digest of a policy's limits at {@code recordKey} ({@code internal.engine.PolicyRecords}),
     * unless another digest is recorded: the key absent, holding this digest or {@code previous}
     * (what this node recorded before a reload; 0: none) is set to it for {@code ttlMillis}, and 0
     * answered; a key holding another digest is left as it is, and that digest answered (a key that
     * is no digest, -1). One key, one call: a Cluster routes it by itself.
     */
    public long recordPolicy(String recordKey, long digest, long previous, long ttlMillis) {
        if (digest <= 0 || ttlMillis <= 0) {
            throw new IllegalArgumentException("a digest and a lifetime are positive, got " + digest + ", " + ttlMillis);
        }
        long[] reply = redis.eval(RECORD_BYTES, List.of(bytes(recordKey)),
                List.of(bytes(Long.toString(digest)), bytes(Long.toString(ttlMillis)), bytes(Long.toString(previous))));
        return reply[0];
    }

    /** {@link #recordPolicy}: a string of another type counts as another digest, never an error. */
    private static final byte[] RECORD_BYTES = ("local v = redis.pcall('GET', KEYS[1])\n"
            + "if type(v) == 'table' then return { -1 } end\n"
            + "if not v or v == ARGV[1] or v == ARGV[3] then\n"
            + "  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])\n"
            + "  return { 0 }\n"
            + "end\n"
            + "return { tonumber(v) or -1 }\n").getBytes(StandardCharsets.UTF_8);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        redis.close();
    }

    @Override
    public String toString() {
        return "RedisStore[" + redis.describe() + "]";
    }

    private static String readScript(String name) {
        try (InputStream in = RedisStore.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the Tollgate jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
