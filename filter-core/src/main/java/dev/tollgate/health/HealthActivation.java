package dev.tollgate.health;

import org.eclipse.microprofile.health.Readiness;

/**
 * Never used at run time: its annotation is for servers that scan an application's classes to
 * decide whether to start MicroProfile Health for it. Payara does so only when some class is
 * annotated {@code @Readiness}, {@code @Liveness}, {@code @Startup} or {@code @Path}; without this
 * class a plain servlet application would get no health container, and the check that
 * {@link TollgateHealthExtension} adds would not be reported. Not a bean ({@code @Readiness} is
 * a qualifier, not a bean-defining annotation), and it loads where MicroProfile Health is absent
 * too (the JVM drops annotations whose type it cannot find).
 */
@Readiness
final class HealthActivation {

    private HealthActivation() {
    }
}
