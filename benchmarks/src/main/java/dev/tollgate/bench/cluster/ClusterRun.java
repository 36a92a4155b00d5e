package dev.tollgate.bench.cluster;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.bench.Clients;
import dev.tollgate.bench.Options;
import dev.tollgate.bench.RedisServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Decisions per second of Tollgate ({@code RateLimiter.check}, limit {@value Clients#LIMIT} by
 * IP, over 10,000 clients) at many threads on one standalone Redis and on a three-master Redis Cluster (no replicas) on the same machine, interleaved in short slices so that
 * a change in background load touches every contender alike: the cluster with calls pipelined per
 * master, and without pipelining for reference. Each figure is the median of its slices; the ratio
 * to the standalone figure is the result.
 *
 * <pre>
 * cluster [threads=64] [rounds=5] [time=1s] [pool=16]
 * </pre>
 *
 * Not thread-safe: run once, from {@link dev.tollgate.bench.Main}.
 */
public final class ClusterRun {

    private static final int KEYS = 10_000;

    private ClusterRun() {
    }

    public static void run(Path out, Options options) throws Exception {
        int threads = options.integer("threads", 64);
        int rounds = options.integer("rounds", 5);
        long sliceMillis = options.duration("time", Duration.ofSeconds(1)).toMillis();
        int pool = options.integer("pool", 16);
        Duration timeout = Duration.ofSeconds(10); // throughput, not fault handling, is measured
        RedisServer.deleteTree(out); // a node started on an old nodes.conf would look for the old cluster
        Files.createDirectories(out);
        List<RedisServer> servers = new ArrayList<>();
        try {
            RedisServer standalone = RedisServer.start(out.resolve("standalone"));
            servers.add(standalone);
            List<String> masters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Path dir = out.resolve("cluster-" + i);
                RedisServer node = RedisServer.start(dir, portWithFreeBusPort(), "--cluster-enabled", "yes",
                        "--cluster-config-file", dir.resolve("nodes.conf").toString());
                servers.add(node);
                masters.add(node.host() + ":" + node.port());
            }
            List<String> create = new ArrayList<>(List.of("--cluster", "create"));
            create.addAll(masters);
            create.add("--cluster-yes");
            servers.get(1).cli(create.toArray(String[]::new));
            awaitClusterOk(servers.subList(1, 4));

            List<String> names = List.of("standalone", "cluster", "clusterUnpipelined");
            List<RateLimiter> stores = List.of(
                    RateLimiter.create(Clients.config(settings("tollgate.redis.uri",
                            "redis://" + standalone.host() + ":" + standalone.port(), timeout, pool, true))),
                    RateLimiter.create(Clients.config(settings("tollgate.redis.cluster", String.join(",", masters), timeout, pool, true))),
                    RateLimiter.create(Clients.config(settings("tollgate.redis.cluster", String.join(",", masters), timeout, pool, false))));
            try {
                double[] medians = measure(stores, threads, rounds, sliceMillis);
                StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
                        "[bench] cluster: %d threads, %d rounds of %d ms slices, %d clients, pool %d per node; %d cores;%n",
                        threads, rounds, sliceMillis, KEYS, pool, Runtime.getRuntime().availableProcessors()));
                for (int c = 0; c < names.size(); c++) {
                    report.append(String.format(Locale.ROOT, "[bench]   %-20s %,10.0f decisions/s  %.2fx standalone%n",
                            names.get(c), medians[c], medians[c] / medians[0]));
                }
                System.out.print(report);
                Files.writeString(out.resolve("cluster-results.txt"), report.toString());
            } finally {
                stores.forEach(RateLimiter::close);
            }
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    /** A free port below 55536 whose cluster bus port (+10000) is free too. */
    private static int portWithFreeBusPort() throws IOException {
        for (int i = 0; i < 1000; i++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            try (ServerSocket a = new ServerSocket(port); ServerSocket b = new ServerSocket(port + 10_000)) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port pair for a cluster node");
    }

    /** The benchmark's policy over the Redis at {@code where} ({@code tollgate.redis.uri} or {@code .cluster}). */
    private static Map<String, String> settings(String where, String nodes, Duration timeout, int pool, boolean pipelined) {
        Map<String, String> values = new HashMap<>();
        values.put("tollgate.policy.default.limits", Clients.LIMIT);
        values.put("tollgate.policy.default.key", "ip");
        values.put("tollgate.local.max-keys", "100000");
        values.put(where, nodes);
        values.put("tollgate.redis.pool-size", Integer.toString(pool));
        values.put("tollgate.redis.timeout", timeout.toMillis() + "ms");
        values.put("tollgate.redis.auto-pipelining", Boolean.toString(pipelined));
        return values;
    }

    private static void awaitClusterOk(List<RedisServer> nodes) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < until) {
            if (nodes.stream().allMatch(n -> n.cli("CLUSTER", "INFO").contains("cluster_state:ok"))) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the three-node cluster did not reach cluster_state:ok in 30 s");
    }

    /** Asks until Redis decides, for a while: a cluster just formed may still be agreeing on its slots. */
    private static void load(RateLimiter limiter, RequestView request) throws InterruptedException {
        for (int attempt = 1; limiter.check(request).source() != Decision.Source.REDIS; attempt++) {
            if (attempt == 20) {
                throw new IllegalStateException("Redis did not decide within 10 s of the cluster forming");
            }
            Thread.sleep(500);
        }
    }

    /**
     * The median decisions per second of each limiter, the same threads running one at a time. A
     * decision Redis did not make (a timeout, the failure mode's answer) counts as failed.
     */
    private static double[] measure(List<RateLimiter> stores, int threads, int rounds, long sliceMillis)
            throws InterruptedException {
        List<RequestView> requests = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
            requests.add(Clients.request(Clients.address(i)));
        }
        for (RateLimiter s : stores) {
            load(s, requests.get(0));
        }
        int count = stores.size();
        LongAdder[] done = new LongAdder[count];
        LongAdder failed = new LongAdder();
        for (int i = 0; i < count; i++) {
            done[i] = new LongAdder();
        }
        AtomicInteger current = new AtomicInteger(-1); // -2: stop
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int c = current.get(); c != -2; c = current.get()) {
                    if (c < 0) {
                        LockSupport.parkNanos(1_000_000);
                        continue;
                    }
                    Decision.Source source = stores.get(c).check(requests.get(random.nextInt(KEYS))).source();
                    if (source == Decision.Source.NONE || source == Decision.Source.LOCAL) {
                        failed.increment();
                    } else {
                        done[c].increment();
                    }
                }
            }, "cluster-bench-" + t);
            w.setDaemon(true);
            w.start();
            workers.add(w);
        }
        double[][] rates = new double[count][rounds];
        for (int round = -1; round < rounds; round++) { // round -1 warms up
            for (int j = 0; j < count; j++) {
                int c = (j + Math.max(round, 0)) % count;
                long before = done[c].sum();
                long t0 = System.nanoTime();
                current.set(c);
                Thread.sleep(sliceMillis);
                long ops = done[c].sum() - before;
                if (round >= 0) {
                    rates[c][round] = ops / ((System.nanoTime() - t0) / 1e9);
                }
            }
        }
        current.set(-2);
        for (Thread w : workers) {
            w.join(15_000);
        }
        if (failed.sum() > 0) {
            System.out.println("[bench] warning: " + failed.sum() + " calls failed during the cluster run");
        }
        double[] medians = new double[count];
        for (int c = 0; c < count; c++) {
            double[] r = rates[c].clone();
            Arrays.sort(r);
            medians[c] = r[r.length / 2];
        }
        return medians;
    }
}
