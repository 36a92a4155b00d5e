package dev.tollgate.health;

import dev.tollgate.Health;
import dev.tollgate.RateLimiter;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * Tollgate's readiness, as MicroProfile Health (WildFly, Payara) reports it: down only when Redis
 * is unavailable and a policy then refuses requests ({@code closed} failure mode). Its data tell
 * each limiter's circuit, whether it decides without Redis now, and its Redis call counts.
 *
 * <p>Not a bean by itself (a server without MicroProfile Health must never load it):
 * {@link TollgateHealthExtension} registers it as a {@code @Readiness} bean in every CDI
 * application that sees MicroProfile Health. An application that declares its own subclass as a
 * bean (to add a qualifier or a scope of its own) keeps that one, and gets no second check.
 *
 * <p>Elsewhere, {@link RateLimiter#health()} gives the same facts. Thread-safe.
 */
public class TollgateHealthCheck implements HealthCheck {

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("tollgate");
        boolean up = true;
        for (RateLimiter limiter : RateLimiter.live()) {
            Health h = limiter.health();
            up &= h.ready();
            String p = h.limiter() + ".";
            b.withData(p + "store", h.store())
                    .withData(p + "circuit", h.circuit())
                    .withData(p + "fallback", h.fallback())
                    .withData(p + "redisCalls", h.redisCalls())
                    .withData(p + "redisFailures", h.redisFailures());
            if (h.lastFailure() != null) {
                b.withData(p + "lastFailure", h.lastFailure());
            }
        }
        return b.status(up).build();
    }
}
