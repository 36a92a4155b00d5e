package dev.tollgate.arquillian;

import dev.tollgate.jaxrs.TollgateFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/** Lists its classes, so both servers deploy the same set; Tollgate's settings come from MicroProfile Config. */
@ApplicationPath("/api")
public class PingApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(PingResource.class, TollgateFeature.class);
    }
}
