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

    /** Redis answered NOSCRIPT. */
    final class NoScriptException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NoScriptException(Throwable cause) {
            super("NOSCRIPT", cause, false, false);
        }
    }
}
