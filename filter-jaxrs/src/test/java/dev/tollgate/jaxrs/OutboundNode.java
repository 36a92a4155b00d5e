package dev.tollgate.jaxrs;

import dev.tollgate.RateLimiter;
import dev.tollgate.jaxrs.client.RemoteQuotaException;
import dev.tollgate.jaxrs.client.TollgateClientFilter;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One node of {@link OutboundIT}'s two-JVM run, started as its own process: a limiter on the shared
 * Redis and a JAX-RS client that, after one call to start it, calls the remote from a few threads for the run time, then
 * prints what its filter did on one line and exits (status 0 unless a call failed otherwise).
 *
 * <p>Arguments: Redis URI, key prefix, limits, remote URL, run time in ms, threads.
 */
public final class OutboundNode {

    private OutboundNode() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> m = Map.of("tollgate.redis.uri", args[0], "tollgate.redis.timeout", "2s",
                "tollgate.redis.key-prefix", args[1], "tollgate.jmx", "false", "tollgate.policies", "partner",
                "tollgate.policy.partner.limits", args[2], "tollgate.policy.partner.max-wait", "5s");
        long runMillis = Long.parseLong(args[4]);
        int threads = Integer.parseInt(args[5]);
        try (RateLimiter limiter = RateLimiter.create(dev.tollgate.config.TollgateConfig.load(
                dev.tollgate.config.ConfigLookup.of(dev.tollgate.config.ConfigSources.of("node", m)),
                OutboundNode.class.getClassLoader()), "node", null)) {
            TollgateClientFilter filter = TollgateClientFilter.forRemote(limiter, "partner", "partner.example");
            Client client = ClientBuilder.newClient().register(filter);
            client.target(args[3]).request().get().close(); // the first call starts Jersey's client: before the run
            LongAdder ok = new LongAdder();
            LongAdder notSent = new LongAdder();
            long end = System.nanoTime() + runMillis * 1_000_000;
            List<Thread> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread th = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        try (Response r = client.target(args[3]).request().get()) {
                            if (r.getStatus() == 200) {
                                ok.increment();
                            }
                        } catch (RuntimeException e) {
                            if (RemoteQuotaException.of(e) == null) {
                                throw e;
                            }
                            notSent.increment();
                        }
                    }
                });
                th.start();
                running.add(th);
            }
            for (Thread th : running) {
                th.join();
            }
            client.close();
            System.out.println("[outbound-node] ok=" + ok.sum() + " notSent=" + notSent.sum() + " " + filter.counts());
        }
    }
}
