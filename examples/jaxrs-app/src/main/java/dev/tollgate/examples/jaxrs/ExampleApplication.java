package dev.tollgate.examples.jaxrs;

import dev.tollgate.jaxrs.TollgateFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Map;
import java.util.Set;

/**
 * The application's classes are listed, so every runtime deploys the same set. Its properties
 * are Tollgate's defaults for this application, as init-params are for the servlet filter; an
 * operator overrides any of them with an environment variable (TOLLGATE_POLICY_LOGIN_LIMITS=...)
 * or a system property.
 */
@ApplicationPath("/api")
public class ExampleApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(HelloResource.class, UserResource.class, LoginResource.class, TollgateFeature.class);
    }

    @Override
    public Map<String, Object> getProperties() {
        return Map.of(
                "tollgate.policies", "default,per-route,login",
                "tollgate.policy.default.limits", "5/s burst 10",
                "tollgate.policy.per-route.limits", "20/min",
                "tollgate.policy.per-route.key", "ip+route",
                "tollgate.policy.login.limits", "5/min");
    }
}
