package dev.tollgate.servers;

import java.net.URI;

/**
 * WildFly with {@code standalone-microprofile.xml} and the {@code micrometer} subsystem's
 * Prometheus registry ({@link WildFlyMicroProfile}): MicroProfile Health at
 * {@code /health/ready} on the management port (the default {@code standalone.xml} has WildFly's
 * own health checks there, without MicroProfile Health: no Tollgate check). Metrics: see
 * {@link #metrics}.
 */
class WildFlyObservabilityIT extends ObservabilityContract {

    WildFlyObservabilityIT() {
        super(new WildFlyMicroProfile(Servers.wildfly()));
    }

    @Override
    protected URI healthReady(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.port(WildFlyMicroProfile.MANAGEMENT_PORT) + "/health/ready");
    }

    /**
     * None yet. Tollgate finds the subsystem's {@code MeterRegistry} bean and registers its meters
     * there (TOLLGATE-011 says so), but they never appear at {@code /prometheus}: that bean is a
     * per-deployment {@code ApplicationRegistry} (a {@code SimpleMeterRegistry}) that forwards some
     * of its methods to the server's registries, and neither Micrometer's meter builders nor its
     * {@code counter(name, tags)} shorthands, tried here, got a Tollgate meter through. Open.
     */
    @Override
    protected URI metrics(ServerProcess server) {
        return null;
    }
}
