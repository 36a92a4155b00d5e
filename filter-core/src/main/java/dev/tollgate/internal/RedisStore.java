package dev.tollgate.internal;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.spi.BucketRequest;
import dev.tollgate.spi.BucketStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Token buckets in Redis: every decision is one {@code EVALSHA} of {@code bucket.lua}, which reads
 * the clock from Redis {@code TIME}, so application servers with skewed clocks agree.
 *
 * <p>The script is loaded with {@code SCRIPT LOAD} at start; when Redis has lost it (restart,
 * failover) the call that meets {@code NOSCRIPT} sends it whole with {@code EVAL} and loads it
 * again, and no client sees an error.
 *
 * <p>Thread-safe.
 */
public final class RedisStore implements BucketStore {

    /** The bucket script, read from the class path once. */
    public static final String SCRIPT = readScript();
    /** Its SHA-1, as Redis names it. */
    public static final String SHA1 = sha1(SCRIPT);

    private final RedisPort redis;
    private final LongSupplier clockOverride;

    /** A store that takes the time from Redis {@code TIME}. */
    public RedisStore(RedisPort redis) {
        this(redis, null);
    }

    /**
     * For tests only: a store whose script takes the time from {@code clockOverride} instead of
     * Redis {@code TIME}, so a test can move time without sleeping.
     */
    RedisStore(RedisPort redis, LongSupplier clockOverride) {
        this.redis = redis;
        this.clockOverride = clockOverride;
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
    public long[] acquire(List<BucketRequest> requests) {
        List<String> keys = new ArrayList<>(requests.size());
        List<String> args = new ArrayList<>(1 + requests.size() * 6);
        args.add(clockOverride == null ? "" : Long.toString(clockOverride.getAsLong()));
        int limits = 0;
        for (BucketRequest r : requests) {
            keys.add(r.key());
            boolean log = r.algorithm() == Algorithm.SLIDING_LOG;
            args.add(r.enforcing() ? "1" : "0");
            args.add(log ? "l" : "b");
            args.add(Long.toString(r.cost()));
            args.add(Integer.toString(r.limits().size()));
            for (Limit l : r.limits()) {
                args.add(Long.toString(l.capacity()));
                args.add(Long.toString(log ? l.windowMicros() : l.refillPeriodMicros()));
                args.add(log ? "1" : Long.toString(l.refillTokens()));
            }
            limits += r.limits().size();
        }
        List<Long> reply;
        try {
            reply = redis.evalsha(SHA1, keys, args);
        } catch (RedisPort.NoScriptException e) {
            reply = redis.eval(SCRIPT, keys, args);
            redis.scriptLoad(SCRIPT, keys.get(0));
        }
        if (reply == null || reply.size() != limits * 4) {
            throw new IllegalStateException("the bucket script answered " + reply + " for " + limits + " limits");
        }
        long[] out = new long[reply.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = reply.get(i);
        }
        return out;
    }

    @Override
    public void close() {
        redis.close();
    }

    @Override
    public String toString() {
        return "RedisStore[" + redis.describe() + "]";
    }

    private static String readScript() {
        try (InputStream in = RedisStore.class.getResourceAsStream("bucket.lua")) {
            if (in == null) {
                throw new IllegalStateException("bucket.lua is missing from the Tollgate jar");
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
