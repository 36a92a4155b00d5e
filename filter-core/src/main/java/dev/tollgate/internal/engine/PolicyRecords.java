package dev.tollgate.internal.engine;

import dev.tollgate.Limit;
import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.redis.RedisStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Finds two configurations with different limits writing one namespace and policy (two
 * applications given one {@code tollgate.namespace} by mistake): each keeps its own limits over
 * shared buckets, which no request would show. Per policy, a record in Redis,
 * {@code <prefix><namespace>:policy:<name>}, holds a digest of the limits ({@link #digest}: the
 * numbers that shape its buckets, not how they were written).
 *
 * <p>The rule ({@link RedisStore#recordPolicy}): a node whose digest is recorded, or finds none
 * or the one it recorded itself before a reload, records its own for {@link #TTL_MILLIS}; a node
 * that finds another digest leaves it, and logs {@code TOLLGATE-015} once for that policy and
 * digest. Nodes check at start-up and then at most
 * every {@link #EVERY_NANOS} while they decide (off the request path), and at the first decision
 * after a reload. So the record lives while a node of its configuration decides, and lapses
 * {@link #TTL_MILLIS} after the last one stops: a rolling deploy or a reload that changes a
 * policy's limits is said at most once by each node that checks while nodes of the other
 * limits still run (a single node reloading its own limits says nothing), and never after; two applications in one namespace are said at the start of the second
 * (or at the first check of either after the other's record lapsed), once per node.
 *
 * <p>Checking never fails a request or a start: a failed call is logged at FINE and tried again at
 * the next check. Thread-safe.
 */
public final class PolicyRecords {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    /** How long a record outlives the last check that kept it. */
    public static final long TTL_MILLIS = 180_000;
    /** How often, at most, a deciding node checks again. */
    public static final long EVERY_NANOS = 60_000_000_000L;
    /** Most conflicts remembered as said; past that each is said again at most once a check. */
    private static final int MAX_SAID = 1_000;

    private final RedisStore redis;
    private final String name;
    private final LongSupplier nanoTime;
    private final AtomicLong next;
    private final Set<String> said = ConcurrentHashMap.newKeySet();
    /** The digest this node last recorded, by record key: its own, which a reload replaces. */
    private final Map<String, Long> recorded = new ConcurrentHashMap<>();
    private volatile TollgateConfig checked;

    /** @param name the limiter's, for the message */
    public PolicyRecords(RedisStore redis, String name, LongSupplier nanoTime) {
        this.redis = redis;
        this.name = name;
        this.nanoTime = nanoTime;
        this.next = new AtomicLong(nanoTime.getAsLong() + EVERY_NANOS);
    }

    /**
     * Checks every policy with limits now, in this thread (start-up).
     *
     * @return the policies found written under other limits, each said once
     */
    public List<String> check(TollgateConfig c) {
        checked = c;
        List<String> conflicts = new ArrayList<>();
        if (!c.enabled()) {
            return conflicts;
        }
        String namespace = BucketKeys.namespace(c.namespace().value());
        for (Policy p : c.policies()) {
            long mine = digest(p);
            if (mine == 0) {
                continue; // no buckets to share
            }
            long other;
            try {
                String key = BucketKeys.policyRecordKey(c.store().keyPrefix(), namespace, p.name());
                other = redis.recordPolicy(key, mine, recorded.getOrDefault(key, 0L), TTL_MILLIS);
                if (other == 0 && (recorded.size() < MAX_SAID || recorded.containsKey(key))) {
                    recorded.put(key, mine); // a reload of this node's own limits then replaces its own record
                }
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "the record of policy '" + p.name() + "' could not be checked; next check tries again", e);
                return conflicts;
            }
            if (other != 0) {
                conflicts.add(p.name());
                String conflict = namespace + '\u0000' + p.name() + '\u0000' + mine + '\u0000' + other;
                if (said.size() >= MAX_SAID || said.add(conflict)) {
                    LOG.warning(Messages.namespaceShared(name, namespace, p.name()));
                }
            }
        }
        return conflicts;
    }

    /**
     * At a decision: when a check is due (every {@link #EVERY_NANOS}, or the configuration in force
     * changed since the last), runs one on {@code executor}; otherwise nothing, one clock read.
     */
    public void tick(TollgateConfig c, Executor executor) {
        long now = nanoTime.getAsLong();
        long due = next.get();
        if ((now - due >= 0 || c != checked) && next.compareAndSet(due, now + EVERY_NANOS)) {
            checked = c;
            try {
                executor.execute(() -> check(c));
            } catch (RejectedExecutionException e) {
                // closing: no more checks
            }
        }
    }

    /**
     * A 48-bit digest of what shapes a policy's buckets: algorithm, each limit's numbers (not its
     * text: how it was spelled does not count), each plan's, and
     * the concurrency slots; never 0. 0 for a policy with neither limits nor slots.
     */
    public static long digest(Policy p) {
        if (p.limits().isEmpty() && p.concurrency() == null) {
            return 0;
        }
        StringBuilder sb = new StringBuilder(p.algorithm().name()).append('|');
        limits(sb, p.limits());
        Map<String, List<Limit>> plans = new TreeMap<>(p.planLimits());
        plans.forEach((plan, limits) -> limits(sb.append(plan).append('='), limits));
        if (p.concurrency() != null) {
            sb.append("c").append(p.concurrency().slots());
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 0; i < 6; i++) {
                v = v << 8 | (d[i] & 0xff);
            }
            return v == 0 ? 1 : v;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void limits(StringBuilder sb, List<Limit> limits) {
        for (Limit l : limits) {
            sb.append(l.capacity()).append('/').append(l.refillTokens()).append('/').append(l.refillPeriodMicros())
                    .append('/').append(l.windowMicros()).append('/').append(l.calendar()).append(';');
        }
        sb.append('|');
    }
}
