package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.jaxrs.client.RemoteQuotaException;
import dev.tollgate.jaxrs.client.TollgateClientFilter;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.WithRedis;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * Two "nodes" (two limiters, two JAX-RS clients) share one real Redis and call one real remote
 * (Jersey in Tomcat) in parallel for a bounded time. The remote counts what it received per
 * second; together the nodes stay under the policy's limit. In the second test the remote's own
 * Tollgate limit is tighter: its answers pause both nodes, so few calls are refused there.
 */
@WithRedis
class OutboundIT {

    static final int THREADS_PER_NODE = 4;
    static final long RUN_MILLIS = 3_000;

    /** What the remote received, per second since the epoch, and how it answered. */
    static final Map<Long, AtomicInteger> RECEIVED = new ConcurrentSkipListMap<>();

    @Path("/partner")
    public static class Partner {
        @GET
        public String call() {
            RECEIVED.computeIfAbsent(System.currentTimeMillis() / 1000, s -> new AtomicInteger()).incrementAndGet();
            return "ok";
        }
    }

    static ResourceConfig remote(RedisEndpoint redis, String limits) {
        ResourceConfig rc = new ResourceConfig(Partner.class);
        if (limits != null) {
            rc.register(TollgateFeature.class);
            rc.property("tollgate.redis.uri", redis.uri());
            rc.property("tollgate.redis.timeout", "2s");
            rc.property("tollgate.redis.key-prefix", "remote-" + UUID.randomUUID() + ":");
            rc.property("tollgate.jaxrs.global", "true");
            rc.property("tollgate.jmx", "false");
            rc.property("tollgate.deny-cache", "false");
            rc.property("tollgate.policies", "remote");
            rc.property("tollgate.policy.remote.limits", limits);
        }
        return rc;
    }

    /** One node's limiter: the same Redis and key prefix as the other node's. */
    static RateLimiter node(RedisEndpoint redis, String prefix, String limits, String name) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.redis.uri", redis.uri());
        m.put("tollgate.redis.timeout", "2s");
        m.put("tollgate.redis.key-prefix", prefix);
        m.put("tollgate.jmx", "false");
        m.put("tollgate.policies", "partner");
        m.put("tollgate.policy.partner.limits", limits);
        m.put("tollgate.policy.partner.max-wait", "5s");
        m.put("tollgate.policy.partner.max-pause", "10s");
        return RateLimiter.create(TollgateConfig.load(ConfigLookup.of(ConfigSources.of(name, m)),
                OutboundIT.class.getClassLoader()), name, null);
    }

    /** What both nodes did in one run. */
    record Run(long calls, long answered200, long answered429, long notSent, List<TollgateClientFilter.Counts> counts,
               double seconds, int mostInOneSecond) {
    }

    static Run fire(JerseyOnTomcat remote, RateLimiter a, RateLimiter b) throws Exception {
        RECEIVED.clear();
        List<TollgateClientFilter> filters = List.of(TollgateClientFilter.forRemote(a, "partner", "partner.example"),
                TollgateClientFilter.forRemote(b, "partner", "partner.example"));
        List<Client> clients = new ArrayList<>();
        for (TollgateClientFilter f : filters) {
            clients.add(ClientBuilder.newClient().register(f));
        }
        String url = "http://127.0.0.1:" + remote.port() + "/api/partner";
        for (Client c : clients) {
            c.target(url).request().get().close(); // the first call starts Jersey's client: not part of the run
        }
        RECEIVED.clear();
        LongAdder ok = new LongAdder();
        LongAdder refused = new LongAdder();
        LongAdder notSent = new LongAdder();
        ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_NODE);
        long start = System.nanoTime();
        long end = start + RUN_MILLIS * 1_000_000;
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < 2 * THREADS_PER_NODE; t++) {
            Client client = clients.get(t % 2);
            running.add(pool.submit(() -> {
                while (System.nanoTime() < end) {
                    try (Response r = client.target(url).request().get()) {
                        (r.getStatus() == 200 ? ok : refused).increment();
                    } catch (RuntimeException e) {
                        if (RemoteQuotaException.of(e) == null) {
                            throw e;
                        }
                        notSent.increment();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        clients.forEach(Client::close);
        int most = RECEIVED.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
        long received = RECEIVED.values().stream().mapToLong(AtomicInteger::get).sum();
        return new Run(received, ok.sum(), refused.sum(), notSent.sum(),
                List.of(filters.get(0).counts(), filters.get(1).counts()), seconds, most);
    }

    @Test
    void twoNodesSharingOneRedisStayUnderThePolicyTogether(RedisEndpoint redis) throws Exception {
        String prefix = "outbound-" + UUID.randomUUID() + ":";
        try (JerseyOnTomcat remote = new JerseyOnTomcat(remote(redis, null));
             RateLimiter a = node(redis, prefix, "20/s burst 5", "node-a");
             RateLimiter b = node(redis, prefix, "20/s burst 5", "node-b")) {
            Run run = fire(remote, a, b);
            System.out.println("[outbound-it] two nodes, 20/s burst 5, remote without a limit: " + run + " per second "
                    + RECEIVED.values());
            assertEquals(run.calls(), run.answered200(), "the remote refused nothing");
            assertTrue(run.calls() <= 5 + 20 * run.seconds(), run.calls() + " calls in " + run.seconds() + " s");
            assertTrue(run.calls() > 5, "the nodes called beyond the burst: " + run);
            assertTrue(run.counts().get(0).sent() > 0 && run.counts().get(1).sent() > 0, "both nodes called: " + run);
            assertTrue(run.counts().get(0).waited() + run.counts().get(1).waited() > 0, "calls waited for tokens: " + run);
            assertEquals(0, run.notSent(), "no call waited beyond max-wait (5s): " + run);
        }
    }

    @Test
    void aCallThatWouldWaitBeyondMaxWaitIsNotSentAndTheRuntimeThrowsOurException(RedisEndpoint redis) throws Exception {
        String prefix = "outbound-" + UUID.randomUUID() + ":";
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.redis.uri", redis.uri());
        m.put("tollgate.redis.key-prefix", prefix);
        m.put("tollgate.jmx", "false");
        m.put("tollgate.policies", "partner");
        m.put("tollgate.policy.partner.limits", "1/min");
        m.put("tollgate.policy.partner.max-wait", "0s");
        try (JerseyOnTomcat remote = new JerseyOnTomcat(remote(redis, null));
             RateLimiter a = RateLimiter.create(TestConfigs.withProviders(m), "node-a", null)) {
            RECEIVED.clear();
            Client client = ClientBuilder.newClient().register(TollgateClientFilter.forPolicy(a, "partner"));
            String url = "http://127.0.0.1:" + remote.port() + "/api/partner";
            long sent = System.nanoTime();
            try (Response r = client.target(url).request().get()) {
                assertEquals(200, r.getStatus());
            }
            RuntimeException thrown = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                    () -> client.target(url).request().get().close());
            RemoteQuotaException q = RemoteQuotaException.of(thrown);
            System.out.println("[outbound-it] Jersey threw " + thrown.getClass().getName() + ", carrying " + q);
            assertTrue(q != null, "our exception, or its cause: " + thrown);
            // the token comes back a minute after the first call took it, less the time since (a busy machine may take seconds)
            long since = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
            assertTrue(q.retryAfter().toMillis() >= 59_000 - since, q + " after " + since + " ms");
            assertEquals(1, RECEIVED.values().stream().mapToInt(AtomicInteger::get).sum(), "the second call was not sent");
            client.close();
        }
    }

    @Test
    void twoNodeJvmsSharingOneRedisStayUnderThePolicyTogether(RedisEndpoint redis) throws Exception {
        String prefix = "outbound-" + UUID.randomUUID() + ":";
        try (JerseyOnTomcat remote = new JerseyOnTomcat(remote(redis, null))) {
            String url = "http://127.0.0.1:" + remote.port() + "/api/partner";
            String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
            RECEIVED.clear();
            long start = System.nanoTime();
            List<Process> nodes = new ArrayList<>();
            for (int n = 0; n < 2; n++) {
                nodes.add(new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"), OutboundNode.class.getName(),
                        redis.uri(), prefix, "20/s burst 5", url, "3000", Integer.toString(THREADS_PER_NODE))
                        .redirectErrorStream(true).start());
            }
            List<String> said = new ArrayList<>();
            for (Process p : nodes) {
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertEquals(0, p.waitFor(), out);
                said.add(out.lines().filter(l -> l.startsWith("[outbound-node]")).findFirst().orElse(out));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long received = RECEIVED.values().stream().mapToLong(AtomicInteger::get).sum();
            System.out.println("[outbound-it] two node JVMs, 20/s burst 5: the remote received " + received + " in "
                    + seconds + " s, per second " + RECEIVED.values() + "; " + said);
            assertTrue(received <= 5 + 20 * seconds, received + " calls in " + seconds + " s");
            // the total above includes the JVMs' start; per wall-clock second, burst + rate x (1 s, and 0.5 s
            // allowed between a decision in Redis and the call's arrival at the remote)
            int most = RECEIVED.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
            assertTrue(most <= 5 + 20 * 1.5, most + " calls in one second: " + RECEIVED.values());
            assertTrue(received > 5 + 2, "the nodes called beyond the burst and their first calls: " + said);
            assertTrue(said.stream().allMatch(l -> l.contains("notSent=0 ")), "no call gave up: " + said);
        }
    }

        @Path("/repos/{name}")
    public static class Repos {
        @GET
        public String repository(@jakarta.ws.rs.PathParam("name") String name) {
            RECEIVED.computeIfAbsent(System.currentTimeMillis() / 1000, s -> new AtomicInteger()).incrementAndGet();
            return "repository " + name;
        }
    }

    @Test
    void theReadmeExampleWaitsThenReportsTheSpentQuota(RedisEndpoint redis) throws Exception {
        ResourceConfig app = new ResourceConfig(Repos.class, TollgateFeature.class);
        app.property("tollgate.redis.uri", redis.uri());
        app.property("tollgate.redis.key-prefix", "outbound-" + UUID.randomUUID() + ":");
        app.property("tollgate.jmx", "false");
        app.property("tollgate.policies", "github");
        app.property("tollgate.policy.github.limits", "1/min burst 2");
        app.property("tollgate.policy.github.match", "OUTBOUND /");
        app.property("tollgate.policy.github.max-wait", "0s");
        try (JerseyOnTomcat t = new JerseyOnTomcat(app)) {
            RECEIVED.clear();
            assertEquals(200, t.get("/api/repos/warm").statusCode(), "an incoming request is not the outbound policy's");
            dev.tollgate.jaxrs.client.ReadmeExample example = new dev.tollgate.jaxrs.client.ReadmeExample(
                    t.context.getServletContext(), "http://127.0.0.1:" + t.port() + "/api");
            assertEquals("repository acme", example.repository("acme"));
            assertEquals("repository tollgate", example.repository("tollgate"));
            String busy = example.repository("third");
            assertTrue(busy.matches("busy, try again in (59|60) s"), busy);
            assertEquals(3, RECEIVED.values().stream().mapToInt(AtomicInteger::get).sum(), "the third call was not sent");
            example.close();
        }
    }

    @Test
    void aTighterRemoteLimitPausesBothNodesThroughItsAnswers(RedisEndpoint redis) throws Exception {
        String prefix = "outbound-" + UUID.randomUUID() + ":";
        try (JerseyOnTomcat remote = new JerseyOnTomcat(remote(redis, "5/s burst 5"));
             RateLimiter a = node(redis, prefix, "20/s burst 5", "node-a");
             RateLimiter b = node(redis, prefix, "20/s burst 5", "node-b")) {
            Run run = fire(remote, a, b);
            long pauses = run.counts().get(0).pauses() + run.counts().get(1).pauses();
            System.out.println("[outbound-it] two nodes, 20/s burst 5, remote limit 5/s burst 5: " + run + " per second "
                    + RECEIVED.values());
            assertTrue(pauses > 0, "the remote's answers paused the nodes: " + run);
            assertTrue(run.counts().get(0).pauses() > 0 && run.counts().get(1).pauses() > 0,
                    "each node read the remote: " + run);
            assertTrue(run.answered200() <= 5 + 5 * run.seconds(), "the remote's own limit held: " + run);
            assertTrue(run.answered429() < run.answered200(),
                    "paused, the nodes met few refusals (unpaused at 20/s they would meet three per success): " + run);
        }
    }
}
