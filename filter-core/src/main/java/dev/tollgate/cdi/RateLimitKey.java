package dev.tollgate.cdi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a parameter of a {@link RateLimited} method (a tenant id, an account number) the client
 * key of the call, instead of the HTTP request's client: calls with equal values share a bucket,
 * calls with different values do not.
 *
 * <p>The rule, for every value a caller can pass (never an exception from the interceptor):
 * <ul>
 *   <li>A value is its {@code toString()}; an array is {@code [} its elements {@code ]}, joined by
 *       {@code ,}. A {@code null}, or a value whose {@code toString()} throws or answers
 *       {@code null}, is the null value, written {@code %00}: one key, which every such call shares.</li>
 *   <li>Several annotated parameters make one key, in parameter order: {@code arg=} and the values
 *       joined by {@code ,}, each value with {@code %}, {@code ,}, {@code [} and {@code ]} written
 *       {@code %25}, {@code %2C}, {@code %5B} and {@code %5D}; so two different lists of values
 *       never make the same key.</li>
 *   <li>The key is then bounded and made safe like every client key: unsafe characters
 *       percent-encoded, and a key longer than 120 characters replaced by a hash of it (an
 *       absurdly long value is hashed, not refused). The key prefix and format
 *       ({@code tollgate.redis.key-prefix}, {@code key-format}) apply as for the filters.</li>
 * </ul>
 * The policies' own {@code key} does not apply to such a call; the allow-list and the plan still
 * read the current HTTP request, when there is one.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface RateLimitKey {
}
