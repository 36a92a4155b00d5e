package dev.tollgate.servers;

import java.net.URI;

/**
 * Payara Micro as it comes: MicroProfile Health at {@code /health/ready} and MicroProfile Metrics
 * at {@code /metrics} on the HTTP port, both on by default. Tollgate's decisions are in the
 * application registry ({@code mp_scope="application"}).
 */
class PayaraMicroObservabilityIT extends ObservabilityContract {

    PayaraMicroObservabilityIT() {
        super(Servers.payaraMicro());
    }

    @Override
    protected URI healthReady(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + "/health/ready");
    }

    @Override
    protected URI metrics(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics?scope=application");
    }
}
