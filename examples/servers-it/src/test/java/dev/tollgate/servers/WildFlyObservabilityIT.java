package dev.tollgate.servers;

import java.net.URI;

/**
 * WildFly with {@code standalone-microprofile.xml} and the {@code micrometer} subsystem's
 * Prometheus registry ({@link WildFlyMicroProfile}): MicroProfile Health at
 * {@code /health/ready} and Tollgate's decisions at {@code /prometheus}, both on the management
 * port, reached by Tollgate through the {@code MeterRegistry} bean the subsystem gives the
 * application. The default {@code standalone.xml} has neither.
 */
class WildFlyObservabilityIT extends ObservabilityContract {

    WildFlyObservabilityIT() {
        super(new WildFlyMicroProfile(Servers.wildfly()));
    }

    @Override
    protected URI healthReady(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.port(WildFlyMicroProfile.MANAGEMENT_PORT) + "/health/ready");
    }

    @Override
    protected URI metrics(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.port(WildFlyMicroProfile.MANAGEMENT_PORT) + "/prometheus");
    }
}
