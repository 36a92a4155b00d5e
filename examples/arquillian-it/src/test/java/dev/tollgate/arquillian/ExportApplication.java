package dev.tollgate.arquillian;

import dev.tollgate.jaxrs.RateLimitExceededMapper;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/** No Tollgate filter here: the interceptor alone limits, the mapper alone answers. */
@ApplicationPath("/api")
public class ExportApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ExportResource.class, RateLimitExceededMapper.class);
    }
}
