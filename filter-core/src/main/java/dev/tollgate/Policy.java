package dev.tollgate;

import dev.tollgate.spi.KeyResolver;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named rule: which requests it covers, what identifies a client, and the limits each client
 * gets. All limits of a policy live in one bucket key and are checked together.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name    the policy's name, also used in Redis keys and response headers
 * @param limits  one or more limits, all of which must admit a request
 * @param key     what identifies a client
 * @param keyText how {@code key} was written, for logs and messages
 * @param match   which requests the policy covers (ignored when a policy is selected by name)
 * @param mode    enforce or only observe
 * @param cost    tokens one request takes from each limit, at least 1 and at most every capacity
 */
public record Policy(String name, List<Limit> limits, KeyResolver key, String keyText,
                     RequestMatcher match, Mode mode, long cost) {

    /** The characters a policy name may use; it goes into Redis keys and header values as is. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    public Policy {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("policy name '" + name
                    + "' must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit");
        }
        limits = List.copyOf(limits);
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("policy '" + name + "' has no limit");
        }
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(mode, "mode");
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, got " + cost);
        }
        for (Limit limit : limits) {
            if (cost > limit.capacity()) {
                throw new IllegalArgumentException("cost " + cost + " is above the capacity "
                        + limit.capacity() + " of '" + limit + "': such a request could never pass");
            }
        }
        keyText = keyText == null ? "?" : keyText;
    }

    /**
     * Whether {@code match} was configured; {@code false} when it is the default
     * {@link RequestMatcher#ALL}. The JAX-RS adapter applies a policy named by
     * {@code @RateLimited} by path only when it has a match of its own.
     */
    public boolean hasOwnMatch() {
        return match != RequestMatcher.ALL;
    }

    /**
     * The name each limit carries in the {@code RateLimit} and {@code RateLimit-Policy} headers:
     * the policy's name when it has one limit, else the name with {@code -1}, {@code -2}, ...
     */
    public String limitName(int index) {
        return limits.size() == 1 ? name : name + "-" + (index + 1);
    }
}
