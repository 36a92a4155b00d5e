package dev.tollgate.servers.owncheck;

import dev.tollgate.health.TollgateHealthCheck;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * An application's own Tollgate readiness check, as docs/operations.md allows: a bean extending
 * {@link TollgateHealthCheck}. {@code ObservabilityContract} puts this class into a copy of
 * {@code servlet-app}; its data say {@code declared-by: application}, so that the one
 * {@code tollgate} check the server reports can be told from the one Tollgate's extension adds.
 */
@Readiness
@ApplicationScoped
public class OwnTollgateCheck extends TollgateHealthCheck {

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponse r = super.call();
        HealthCheckResponseBuilder b = HealthCheckResponse.builder().name(r.getName())
                .status(r.getStatus() == HealthCheckResponse.Status.UP).withData("declared-by", "application");
        r.getData().ifPresent(data -> data.forEach((k, v) -> b.withData(k, String.valueOf(v))));
        return b.build();
    }
}
