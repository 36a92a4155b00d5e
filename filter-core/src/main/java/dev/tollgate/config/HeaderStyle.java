package dev.tollgate.config;

/** Which rate limit headers responses carry. */
public enum HeaderStyle {
    /** {@code RateLimit-Policy} and {@code RateLimit}, as draft-ietf-httpapi-ratelimit-headers-11 writes them. */
    DRAFT,
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
    LEGACY,
    /** Both of the above. */
    BOTH,
    /** No rate limit headers; a 429 still carries {@code Retry-After}. */
    NONE;

    public boolean draft() {
        return this == DRAFT || this == BOTH;
    }

    public boolean legacy() {
        return this == LEGACY || this == BOTH;
    }
}
