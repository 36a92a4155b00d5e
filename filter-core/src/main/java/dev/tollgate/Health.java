package dev.tollgate;

/**
 * A limiter's state, for readiness checks and operators.
 *
 * @param limiter        the limiter's name (the filter's, or {@code jaxrs})
 * @param ready          {@code false} only when Redis is unavailable and a policy refuses requests
 *                       in that case ({@code closed} failure mode): the application then answers 503
 * @param store          {@code redis} or {@code memory}
 * @param circuit        {@code closed}, {@code half_open} or {@code open}; {@code none} without Redis
 * @param fallback       whether decisions are being made without Redis now
 * @param redisCalls     calls made to Redis since start
 * @param redisFailures  of which failed or timed out
 * @param lastFailure    the last Redis failure, without secrets; {@code null} if none
 */
public record Health(String limiter, boolean ready, String store, String circuit, boolean fallback,
                     long redisCalls, long redisFailures, String lastFailure) {
}
