package dev.tollgate.bench.growth;

import dev.tollgate.bench.Clients;
import dev.tollgate.bench.Options;
import dev.tollgate.bench.RedisServer;
import dev.tollgate.bench.report.Machine;
import dev.tollgate.bench.report.Table;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How cost grows (issue 15): Redis memory and latency against live buckets, decision time against
 * policies configured, client resolution against proxy hops. Writes {@code growth.md}, a CSV per
 * table and a PNG per curve under {@code target/bench/growth/}. (The local store and the deny cache
 * past their bound, once the {@code bounds} part, are measured in filter-core's {@code jmh} set,
 * {@code BoundGrowth}.)
 *
 * <p>Options: {@code quick}; {@code only=redis,policies,hops}; {@code keys=1000,10000,100000,1000000};
 * {@code redis-rounds=20000}; {@code rounds=200000} (policies, hops).
 */
public final class GrowthRun {

    /** Held so that its level stays: the engine's start-up line per configuration is not wanted here. */
    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("dev.tollgate");

    private GrowthRun() {
    }

    public static void run(Path out, Options options) throws Exception {
        RedisServer.deleteTree(out);
        Files.createDirectories(out);
        QUIET.setLevel(java.util.logging.Level.WARNING);
        boolean quick = options.quick();
        Set<String> only = Set.of(options.get("only", "redis,policies,hops").split(","));
        int rounds = options.integer("rounds", quick ? 20_000 : 200_000);
        int warmup = Math.max(rounds / 2, 20_000);
        StringBuilder md = new StringBuilder("# How cost grows\n\n");
        md.append("Run on ").append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append(" (").append(options)
                .append("), load average at the start: ").append(load()).append(".\n\n");
        String redisVersion = "not started";
        long start = System.nanoTime();

        if (only.contains("redis")) {
            List<Integer> keys = options.integers("keys", quick ? List.of(1_000, 10_000, 100_000)
                    : List.of(1_000, 10_000, 100_000, 1_000_000));
            int redisRounds = options.integer("redis-rounds", quick ? 3_000 : 20_000);
            try (RedisServer redis = RedisServer.start(out.resolve("redis"))) {
                redisVersion = redis.version();
                System.setProperty(Clients.PORT, Integer.toString(redis.port()));
                String before = load();
                List<RedisGrowth.Step> steps = RedisGrowth.run(keys, redisRounds);
                redisSection(out, md, steps, redisRounds, before);
            }
        }
        if (only.contains("policies")) {
            String before = load();
            List<PolicyGrowth.Row> rows = PolicyGrowth.run(List.of(1, 8, 64), 1_000, warmup / 2, rounds / 2);
            policySection(out, md, rows, rounds / 2, before);
        }
        if (only.contains("hops")) {
            String before = load();
            List<HopGrowth.Row> rows = HopGrowth.run(List.of(1, 2, 4, 8, 16, 32, 33, 64), 1_000, warmup / 2, rounds / 2);
            hopSection(out, md, rows, rounds / 2, before);
        }
        md.append("Whole run: ").append(Math.round((System.nanoTime() - start) / 1e9)).append(" s; load average at the end: ")
                .append(load()).append(".\n\n").append(Machine.markdown(Machine.describe(redisVersion)));
        Files.writeString(out.resolve("growth.md"), md.toString(), StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(md);
    }

    private static void redisSection(Path out, StringBuilder md, List<RedisGrowth.Step> steps, int rounds, String before)
            throws Exception {
        Table t = new Table("live buckets", "used_memory MB", "B/bucket (growth / buckets)", "B/bucket (since last size)",
                "decision P50 µs", "decision P99 µs", "PING P50 µs", "PING P99 µs", "decision / PING, P50",
                "decision / PING, P99", "fill, decisions/s");
        Map<String, List<double[]>> mem = new LinkedHashMap<>();
        Map<String, List<double[]>> lat = new LinkedHashMap<>();
        for (RedisGrowth.Step s : steps) {
            t.row(String.format(Locale.ROOT, "%,d", s.keys()), Table.num(s.usedMemory() / 1e6), Table.num(s.bytesPerKey()),
                    Table.num(s.marginalBytesPerKey()), Table.num(s.decision().p50() / 1e3), Table.num(s.decision().p99() / 1e3),
                    Table.num(s.ping().p50() / 1e3), Table.num(s.ping().p99() / 1e3),
                    Table.ratio(s.decision().p50() / s.ping().p50()), Table.ratio(s.decision().p99() / s.ping().p99()),
                    Table.num(s.fillPerSecond()));
            add(mem, "used_memory growth / live buckets", s.keys(), s.bytesPerKey());
            add(mem, "growth since the last size / buckets added", s.keys(), s.marginalBytesPerKey());
            add(lat, "decision P50", s.keys(), s.decision().p50() / 1e3);
            add(lat, "decision P99", s.keys(), s.decision().p99() / 1e3);
            add(lat, "PING P50", s.keys(), s.ping().p50() / 1e3);
            add(lat, "PING P99", s.keys(), s.ping().p99() / 1e3);
        }
        GrowthCharts.lines(out.resolve("growth-redis-memory.png"), "Redis memory per live bucket", "live buckets",
                "bytes per bucket", mem, 10, false);
        GrowthCharts.lines(out.resolve("growth-redis-latency.png"), "One decision over Redis against a PING, one thread",
                "live buckets", "µs", lat, 10, true);
        section(out, md, "redis", "Redis: memory and latency against live buckets", t,
                "Filled with real decisions (`RateLimiter.check` over Redis, 8 threads, auto-pipelined), one bucket per"
                        + " client, limit `" + Configs.LIMIT + "`; then " + rounds + " rounds, one thread, each a decision"
                        + " for a live client at random and a `PING`, in turn.", before);
    }

    private static void policySection(Path out, StringBuilder md, List<PolicyGrowth.Row> rows, int rounds, String before)
            throws Exception {
        Table t = new Table("policies", "request", "policies matched", "P50 ns", "P90 ns", "P99 ns", "mean ns",
                "B/decision", "P50 / 1 policy's P50");
        double oneP50 = rows.get(0).figure().p50();
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (PolicyGrowth.Row r : rows) {
            Rotation.Figure f = r.figure();
            t.row(r.policies(), r.request(), r.matched(), Table.num(f.p50()), Table.num(f.p90()), Table.num(f.p99()),
                    Table.num(f.mean()), Table.num(f.bytes()), Table.ratio(f.p50() / oneP50));
            String name = switch (r.request()) {
                case "one" -> "matched by one (the last)";
                case "few" -> "matched by four";
                default -> "matched by all";
            };
            if (r.policies() == 1) {
                for (String s : List.of("matched by one (the last)", "matched by four", "matched by all")) {
                    add(series, s, 1, f.p50());
                }
            } else {
                add(series, name, r.policies(), f.p50());
            }
        }
        GrowthCharts.lines(out.resolve("growth-policies.png"), "One in-memory decision against policies configured (P50)",
                "policies configured", "ns", series, 0, false);
        section(out, md, "policies", "Decision time against policies configured", t,
                "`RateLimiter.check` with the in-memory store, 1,000 clients at random, every configuration and request"
                        + " in one rotation, " + rounds + " rounds; bytes from the thread's allocation counter in a"
                        + " separate pass.", before);
    }

    private static void hopSection(Path out, StringBuilder md, List<HopGrowth.Row> rows, int rounds, String before)
            throws Exception {
        Table t = new Table("hops", "what", "P50 ns", "P90 ns", "P99 ns", "mean ns", "B/call");
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (HopGrowth.Row r : rows) {
            Rotation.Figure f = r.figure();
            t.row(r.hops(), r.what(), Table.num(f.p50()), Table.num(f.p90()), Table.num(f.p99()), Table.num(f.mean()),
                    Table.num(f.bytes()));
            add(series, r.what() + ", P50", r.hops(), f.p50());
        }
        GrowthCharts.lines(out.resolve("growth-hops.png"), "Finding the client behind proxy hops (P50)", "hops",
                "ns", series, 0, false);
        section(out, md, "hops", "Client resolution against proxy hops", t,
                "Peer and proxies in the trusted `10.0.0.0/8`; the header holds the client then `hops - 1` proxies;"
                        + " at most 32 are read. All in one rotation, " + rounds + " rounds.", before);
    }

    private static void section(Path out, StringBuilder md, String name, String title, Table t, String how, String before)
            throws Exception {
        Files.writeString(out.resolve("growth-" + name + ".csv"), t.csv(), StandardCharsets.UTF_8);
        md.append("## ").append(title).append("\n\n").append(how).append(" Load average before: ").append(before)
                .append(", after: ").append(load()).append(".\n\n").append(t.markdown()).append('\n');
        System.out.println("[bench] " + title + "\n" + t.markdown());
    }

    private static void add(Map<String, List<double[]>> series, String name, double x, double y) {
        series.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {x, y});
    }

    /** The 1, 5 and 15 minute load averages. */
    static String load() {
        try {
            String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return p[0] + ", " + p[1] + ", " + p[2];
        } catch (Exception e) {
            return "unknown";
        }
    }
}
