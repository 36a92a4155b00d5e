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
     * The {@code micrometer} subsystem's Prometheus registry on the management port. Tollgate's
     * meters carry the subsystem's {@code WF_DEPLOYMENT} tag (the WAR's name).
     */
    @Override
    protected URI metrics(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.port(WildFlyMicroProfile.MANAGEMENT_PORT) + "/prometheus");
    }
}
