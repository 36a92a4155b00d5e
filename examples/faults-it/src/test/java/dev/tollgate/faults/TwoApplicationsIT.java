package dev.tollgate.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Decision;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 29 under faults: two applications on one Redis, with the same key prefix, the same policy
 * name ({@code api}) and the same clients (API keys), each in its own namespace and with limits of
 * its own. The first is flooded by every client through two nodes whose proxies the seed's
 * nemesis keeps breaking (latency, lost replies, reset connections) in its failure mode; meanwhile
 * each client of the second, through two healthy nodes, asks for its burst and a few more.
 *
 * <p>The bound: every client of the second application gets its whole allowance, at least its
 * burst, and no more than its own limit admits over the time it asked (burst + rate × t, one
 * token of rounding). Before namespaces both applications wrote {@code faults:{header.x-api-key=…}:api}:
 * the flood had spent every bucket, and the second application's clients got nothing.
 */
class TwoApplicationsIT {

    static final String[] FAILURE_MODES = {"open", "closed", "local"};
    /** The quiet application's limits, one drawn per seed; the flooded one has {@code Node}'s first variant, 5/s burst 10. */
    static final List<Rate> QUIET = List.of(Rate.perSecond(2, 6), Rate.perSecond(1, 8), Rate.perSecond(3, 5));
    static final int CLIENTS = 6;
    static final long FLOOD_MICROS = 2_500_000;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aFloodedApplicationTakesNothingFromTheOthersClients(long seed) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(seed);
        String failureMode = FAILURE_MODES[(int) Math.floorMod(seed, 3)];
        Rate quiet = QUIET.get(random.nextInt(QUIET.size()));
        List<String> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add("sk_live_" + seed + "_" + i + "_" + Long.toHexString(random.nextLong()));
        }
        List<Node> flooded = new ArrayList<>();
        List<Node> others = new ArrayList<>();
        List<FaultProxy> proxies = new ArrayList<>();
        try (RedisProcess redis = TestRedis.startProcess()) {
            for (int i = 0; i < 2; i++) {
                FaultProxy proxy = new FaultProxy(redis.port(), random.nextLong());
                proxies.add(proxy);
                flooded.add(new Node(i, proxy, Map.of("tollgate.redis.uri", "redis://127.0.0.1:" + proxy.port()), failureMode,
                        Map.of("tollgate.namespace", "/flooded")));
                FaultProxy clean = new FaultProxy(redis.port(), random.nextLong());
                others.add(new Node(10 + i, clean, Map.of("tollgate.redis.uri", "redis://127.0.0.1:" + clean.port(),
                        "tollgate.redis.timeout", "2s"), failureMode,
                        Map.of("tollgate.namespace", "/quiet", "tollgate.policy.api.limits", quiet.text())));
            }
            flooded.forEach(Node::awaitRedis);
            others.forEach(Node::awaitRedis);

            long end = System.nanoTime() + FLOOD_MICROS * 1000;
            AtomicLong floodRequests = new AtomicLong();
            AtomicLong refusedByRedis = new AtomicLong();
            List<Thread> flood = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Node node = flooded.get(t % flooded.size());
                int first = t;
                flood.add(new Thread(() -> {
                    for (int i = first; System.nanoTime() < end; i++) {
                        try {
                            Decision d = node.check(api(clients.get(i % clients.size())));
                            floodRequests.incrementAndGet();
                            if (d.source() == Decision.Source.REDIS && !d.allowed()) {
                                refusedByRedis.incrementAndGet(); // the flood spent the buckets in Redis
                            }
                        } catch (RuntimeException e) {
                            // a node of the flooded application under faults: whatever it does is its own
                        }
                    }
                }, "flood-" + t));
            }
            SplittableRandom schedule = random.split(); // the nemesis' own: a SplittableRandom is not shared between threads
            SplittableRandom gaps = random.split();
            Thread nemesis = new Thread(() -> {
                FaultProxy.Fault[] faults = {FaultProxy.Fault.NONE, FaultProxy.Fault.LATENCY, FaultProxy.Fault.DROP_REPLIES,
                        FaultProxy.Fault.RESET};
                while (System.nanoTime() < end) {
                    for (FaultProxy p : proxies) {
                        p.set(faults[schedule.nextInt(faults.length)], schedule.nextLong(1_000, 200_000), 50_000);
                    }
                    Workload.sleepMicros(schedule.nextLong(50_000, 300_000));
                }
                proxies.forEach(FaultProxy::heal);
            }, "nemesis");
            flood.forEach(Thread::start);
            Workload.sleepMicros(300_000); // healthy at first: the flood spends every client's bucket in Redis
            nemesis.start();

            List<String> violations = new ArrayList<>();
            List<String> counts = new ArrayList<>();
            for (int c = 0; c < clients.size(); c++) {
                int asked = (int) quiet.capacity() + 4;
                int admitted = 0;
                long start = System.nanoTime();
                for (int i = 0; i < asked; i++) {
                    Decision d = others.get((c + i) % others.size()).check(api(clients.get(c)));
                    if (d.source() != Decision.Source.REDIS && d.source() != Decision.Source.CACHE) {
                        violations.add("client " + c + ", request " + (i + 1) + " of the quiet application was not decided"
                                + " by Redis: " + d);
                    }
                    admitted += d.allowed() ? 1 : 0;
                }
                long micros = (System.nanoTime() - start) / 1000;
                double bound = quiet.bound(micros) + 1;
                counts.add(Integer.toString(admitted));
                if (admitted < quiet.capacity() || admitted > bound) {
                    violations.add(String.format("client %d of the quiet application (%s): %d admitted of %d asked in %.3f s;"
                            + " its allowance is %d to %.1f", c, quiet.text(), admitted, asked, micros / 1e6,
                            quiet.capacity(), bound));
                }
                Workload.sleepMicros(gaps.nextLong(0, 150_000));
            }
            for (Thread t : flood) {
                t.join();
            }
            nemesis.join();
            System.out.printf("[faults] two applications, seed %d, failure mode %s: %d requests flooded /flooded (5/s burst"
                    + " 10, faults on its proxies; %d refused by Redis) while each client of /quiet (%s) was admitted %s%n",
                    seed, failureMode, floodRequests.get(), refusedByRedis.get(), quiet.text(), String.join(", ", counts));
            assertTrue(refusedByRedis.get() > clients.size(), "the flood spent the buckets in Redis: "
                    + refusedByRedis.get() + " refusals by Redis");
            assertTrue(violations.isEmpty(), "seed " + seed + ":\n" + String.join("\n", violations));
        } finally {
            flooded.forEach(Node::close);
            others.forEach(Node::close);
        }
    }

    static TestRequest api(String key) {
        return TestRequest.get("/api/x").header("X-Api-Key", key);
    }
}
