package dev.tollgate.servlet;

import dev.tollgate.RateLimiter;
import jakarta.servlet.ServletContext;

/**
 * Publishes a limiter as {@code ServletContext} attributes, where application code (a health
 * endpoint, an admin page) can reach a filter that the container made from {@code web.xml}: under
 * its own name, and under {@link TollgateFilter#LIMITER_ATTRIBUTE} if no other limiter is there
 * yet. Thread-safe (one lock with {@code TollgateFeature}, which publishes the same way).
 */
final class LimiterAttribute {

    private LimiterAttribute() {
    }

    static void publish(ServletContext context, String ownName, RateLimiter limiter) {
        context.setAttribute(ownName, limiter);
        synchronized (ServletContext.class) {
            if (context.getAttribute(TollgateFilter.LIMITER_ATTRIBUTE) == null) {
                context.setAttribute(TollgateFilter.LIMITER_ATTRIBUTE, limiter);
            }
        }
    }

    static void withdraw(ServletContext context, String ownName, RateLimiter limiter) {
        context.removeAttribute(ownName);
        synchronized (ServletContext.class) {
            if (context.getAttribute(TollgateFilter.LIMITER_ATTRIBUTE) == limiter) {
                context.removeAttribute(TollgateFilter.LIMITER_ATTRIBUTE);
            }
        }
    }
}
