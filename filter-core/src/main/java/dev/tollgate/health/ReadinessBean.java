package dev.tollgate.health;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Readiness;

/**
 * The synthetic {@code @Readiness} bean. Its own class, so that only a server with MicroProfile
 * Health ever loads these types. Stateless; thread-safe.
 */
final class ReadinessBean {

    private ReadinessBean() {
    }

    static void add(AfterBeanDiscovery event) {
        // @Singleton: no client proxy to generate; the check keeps no state of its own.
        event.addBean()
                .id("dev.tollgate.health.readiness")
                .beanClass(TollgateHealthCheck.class)
                .types(TollgateHealthCheck.class, HealthCheck.class, Object.class)
                .qualifiers(Readiness.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(Singleton.class)
                .createWith(c -> new TollgateHealthCheck());
    }
}
