package dev.tollgate.internal.redis;

import java.util.List;

/**
 * The little of Redis that the store needs. The store never sees a Jedis type; {@link JedisPort}
 * adapts a Jedis client, and tests may adapt anything else.
 *
 * <p>Implementations must be thread-safe.
 */
public interface RedisPort extends AutoCloseable {

    /**
     * Runs a loaded script whose reply is an array of integers. Arguments are bytes, so that the
     * store can encode the parts that never change once.
     *
     * @throws NoScriptException when Redis does not know the script (restarted, failed over)
     */
    long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args);

    /**
     * Runs a loaded script by its SHA-1 and, when Redis has lost it (restarted, failed over), sends
     * it whole ({@code EVAL}, which caches it again): one call, within one time budget.
     */
    default long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args) {
        try {
            return evalsha(sha1, keys, args);
        } catch (NoScriptException e) {
            return eval(script, keys, args);
        }
    }

    /** Sends and runs a script whose reply is an array of integers. */
    long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args);

    /**
     * The end ({@link System#nanoTime}) of one time budget starting now, for calls that must share
     * it ({@link #evalsha(byte[], byte[], List, List, long)}): a request of several calls waits
     * for Redis no longer than a request of one. A port without a budget of its own ignores it.
     */
    default long deadline() {
        return System.nanoTime();
    }

    /**
     * {@link #evalsha(byte[], byte[], List, List)} within what is left of a budget that ends at
     * {@code deadline} (from {@link #deadline}), shared with the calls before it.
     *
     * @throws BudgetSpentException when too little is left to make the call (a port with a budget)
     */
    default long[] evalsha(byte[] sha1, byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
        return evalsha(sha1, script, keys, args);
    }

    /** {@link #eval(byte[], List, List)} within what is left of a budget that ends at {@code deadline}. */
    default long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args, long deadline) {
        return eval(script, keys, args);
    }

    /**
     * Loads a script on the node that owns {@code routingKey} (the only node, outside a cluster).
     *
     * @return its SHA-1
     */
    String scriptLoad(String script, String routingKey);

    /**
     * The version of the server that owns {@code routingKey} (the only server, outside a cluster),
     * as its {@code INFO server} reports it in {@code redis_version}; {@code null} if it reports none
     * or will not say (an ACL user without {@code INFO}).
     *
     * @throws UnsupportedOperationException from a port that cannot tell (the default)
     */
    default String serverVersion(String routingKey) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot tell the server's version");
    }

    /** Whether the keys of one call must share a hash slot (Redis Cluster). */
    default boolean clustered() {
        return false;
    }

    /** The Cluster hash slot of a key (0 outside a cluster). */
    default int slot(String key) {
        return 0;
    }

    /** A description safe to log: no password. */
    String describe();

    @Override
    void close();

    /**
     * No pooled connection was free within the wait: this node is busier than its pool, which
     * says nothing about Redis' health.
     */
    final class BusyException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public BusyException(Throwable cause) {
            super("no Redis connection free in the pool within the wait", cause, false, false);
        }
    }

    /**
     * A call of several keys of one Cluster slot that Redis kept refusing with {@code TRYAGAIN}
     * until too little of its budget was left to send it again: the slot is being migrated and its
     * keys are split between the two masters (some moved, or one never written, which stays so
     * until the migration ends). Redis is healthy, and each key alone can be decided (a call of one
     * key is never answered {@code TRYAGAIN}): the caller may send them one by one within what is
     * left of the budget, which ends at {@link #deadline()}.
     */
    final class SplitKeysException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final long deadline;

        public SplitKeysException(Throwable cause, long deadline) {
            super("TRYAGAIN: the keys of one call are split between two masters by a slot migration", cause, false, false);
            this.deadline = deadline;
        }

        /** The end ({@link System#nanoTime}) of the budget the refused call had. */
        public long deadline() {
            return deadline;
        }
    }

    /**
     * Too little of a call's budget was left for another round trip: to follow a redirection
     * ({@code cause}), or to make one more call of a request whose calls share one budget.
     */
    final class BudgetSpentException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public BudgetSpentException(Throwable cause) {
            super(cause == null ? "too little of the time budget is left for another call"
                    : "too little of the time budget is left to follow " + cause.getMessage(), cause, false, false);
        }
    }

    /** Redis answered NOSCRIPT. */
    final class NoScriptException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NoScriptException(Throwable cause) {
            super("NOSCRIPT", cause, false, false);
        }
    }
}
