package dev.tollgate.examples.jaxrs;

import dev.tollgate.jaxrs.RateLimitExceededMapper;
import dev.tollgate.jaxrs.TollgateFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.HashSet;
import java.util.Set;

/**
 * The application's classes are listed, so every runtime deploys the same set. Tollgate's
 * settings for this application are in {@code META-INF/microprofile-config.properties}, where the
 * JAX-RS feature, the CDI interceptor of {@link ReportService} and {@link PartnerClient} read them (an extension
 * cannot see {@code Application.getProperties()}); an operator overrides any of them with an
 * environment variable (TOLLGATE_POLICY_LOGIN_LIMITS=...) or a system property.
 */
@ApplicationPath("/api")
public class ExampleApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        Set<Class<?>> classes = new HashSet<>(Set.of(HelloResource.class, UserResource.class, LoginResource.class,
                TollgateFeature.class));
        if (cdi()) {
            // the CDI example; Tomcat (jaxrs-app-tomcat) has no CDI to inject or intercept ReportService
            classes.add(ReportResource.class);
            classes.add(RateLimitExceededMapper.class);
            // the outbound client (PartnerClient is a CDI bean) and the partner API it calls by default
            classes.add(PartnerResource.class);
            classes.add(PartnerStandIn.class);
        }
        return classes;
    }

    private static boolean cdi() {
        try {
            return jakarta.enterprise.inject.spi.CDI.current() != null;
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
