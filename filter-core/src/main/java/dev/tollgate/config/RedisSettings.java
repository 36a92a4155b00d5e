package dev.tollgate.config;

import java.time.Duration;

/**
 * How to reach a standalone Redis.
 *
 * <p>The password is never part of {@link #toString()} or {@link #describe()}.
 *
 * @param host     host name or address
 * @param port     port
 * @param tls      {@code rediss://}
 * @param user     ACL user, or {@code null}
 * @param password password, or {@code null}
 * @param database database index
 * @param timeout  the time budget of one call
 * @param poolSize most connections
 */
public record RedisSettings(String host, int port, boolean tls, String user, String password, int database,
                            Duration timeout, int poolSize) {

    /** The URI with the password masked, for logs. */
    public String describe() {
        StringBuilder sb = new StringBuilder(tls ? "rediss://" : "redis://");
        if (user != null || password != null) {
            if (user != null) {
                sb.append(user);
            }
            if (password != null) {
                sb.append(":****");
            }
            sb.append('@');
        }
        sb.append(host.contains(":") ? "[" + host + "]" : host).append(':').append(port);
        if (database != 0) {
            sb.append('/').append(database);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "RedisSettings[" + describe() + ", timeout=" + timeout + ", poolSize=" + poolSize + "]";
    }
}
