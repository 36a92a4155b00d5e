package dev.tollgate.bench.decision;

import dev.tollgate.RateLimiter;
import dev.tollgate.bench.Clients;
import dev.tollgate.bench.Options;
import dev.tollgate.bench.RedisServer;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Json;
import dev.tollgate.bench.report.Machine;
import dev.tollgate.bench.report.Table;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import redis.clients.jedis.RedisClient;

/**
 * The decision benchmarks, in one run against one Redis: JMH over the floor and the contenders
 * at several thread counts, Redis memory per bucket and expiry, and the redis-benchmark ceiling.
 * Writes {@code decision.md}, {@code decision.csv}, {@code decision.json} and
 * {@code throughput-by-threads.png}.
 */
public final class DecisionRun {

    /** One JMH figure. keys is 0 for the floor benchmarks. */
    record Row(String bench, int keys, int threads, int pool, double opsPerSecond, double error,
               double allocBytesPerOp, Map<String, String> redis) {

        /** e.g. "evalsha 1, time 1, get 1, set 1": commands per decision, those run inside scripts included. */
        String commandsPerOp() {
            double ops = num("operations");
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<String, String> e : redis.entrySet()) {
                if (e.getKey().startsWith("cmd.") && e.getKey().endsWith(".calls") && ops > 0) {
                    double per = Double.parseDouble(e.getValue()) / ops;
                    if (per >= 0.005) {
                        String cmd = e.getKey().substring(4, e.getKey().length() - 6).replace('|', ' ');
                        sb.append(sb.length() == 0 ? "" : ", ").append(cmd).append(' ')
                                .append(String.format(Locale.ROOT, "%.2f", per).replaceAll("\\.?0+$", ""));
                    }
                }
            }
            return sb.length() == 0 ? "-" : sb.toString();
        }

        double scriptCallsPerOp() {
            double ops = num("operations");
            double calls = 0;
            for (String c : List.of("cmd.evalsha.calls", "cmd.eval.calls")) {
                String v = redis.get(c);
                calls += v == null ? 0 : Double.parseDouble(v);
            }
            return ops == 0 ? Double.NaN : calls / ops;
        }

        double redisCallsPerOp() {
            double ops = num("operations");
            double calls = 0;
            for (Map.Entry<String, String> e : redis.entrySet()) {
                if (e.getKey().startsWith("cmd.") && e.getKey().endsWith(".calls")) {
                    calls += Double.parseDouble(e.getValue());
                }
            }
            return ops == 0 ? Double.NaN : calls / ops;
        }

        double redisCpuMicrosPerOp() {
            double ops = num("operations");
            return ops == 0 ? Double.NaN : num("redis.cpu.seconds") * 1e6 / ops;
        }

        double num(String key) {
            String v = redis.get(key);
            return v == null ? Double.NaN : Double.parseDouble(v);
        }
    }

    private DecisionRun() {
    }

    public static void run(Path out, Options options) throws Exception {
        boolean quick = options.quick();
        List<Integer> threads = options.integers("threads", quick ? List.of(1, 64) : List.of(1, 4, 16, 64));
        int pool = options.integer("pool", 16);
        RedisServer.deleteTree(out);
        Files.createDirectories(out);
        System.out.println("[bench] decision benchmarks, results in " + out);
        try (RedisServer redis = RedisServer.start(out.resolve("redis"))) {
            System.out.println("[bench] " + redis.version() + " on 127.0.0.1:" + redis.port());
            System.setProperty(Clients.PORT, Integer.toString(redis.port()));
            System.setProperty(Clients.POOL, Integer.toString(pool));
            System.setProperty(Clients.OUT, out.toString());
            System.setProperty(Clients.TIMEOUT_MS, Long.toString(options.duration("timeout", Clients.timeout()).toMillis()));

            List<Row> rows = new ArrayList<>();
            String include = options.get("only", "(FloorBench|DecisionBench)\\..*");
            for (int t : threads) {
                rows.addAll(jmh(out, options, include, t, pool, null));
            }
            if (!options.flag("no-pool-check") && threads.contains(64) && options.get("only", null) == null) {
                int bigPool = 64;
                System.out.println("[bench] pool check: 64 threads with a pool of " + bigPool);
                rows.addAll(jmh(out, options, "(FloorBench\\.ping|DecisionBench\\.tollgateCheck)$", 64, bigPool, "10000"));
            }

            List<InterleavedThroughput.Figure> interleaved = List.of();
            int many = threads.get(threads.size() - 1);
            if (!options.flag("no-interleaved") && many > 1) {
                long slice = options.duration("slice", java.time.Duration.ofMillis(options.quick() ? 300 : 1000)).toMillis();
                int rounds = options.integer("rounds", options.quick() ? 2 : 5);
                System.out.println("[bench] " + many + " threads, interleaved slices of " + slice + " ms, " + rounds + " rounds");
                interleaved = InterleavedThroughput.run(many, slice, rounds);
            }

            List<Interleaved.Figure> latency = List.of();
            if (!options.flag("no-latency")) {
                int rounds = options.integer("latency-rounds", options.quick() ? 3_000 : 20_000);
                System.out.println("[bench] single-thread latency, interleaved, " + rounds + " rounds");
                latency = Interleaved.run(rounds / 4, rounds);
            }

            MemoryProbe memory = new MemoryProbe();
            if (!options.flag("no-memory")) {
                System.out.println("[bench] memory per bucket and expiry");
                memory.run();
            }

            Map<String, RedisBenchmarkTool.Result> ceiling = new LinkedHashMap<>();
            RedisBenchmarkTool tool = RedisBenchmarkTool.find(redis);
            if (tool == null) {
                System.out.println("[bench] no redis-benchmark on the PATH (Debian: redis-tools): no server-side ceiling");
            } else if (!options.flag("no-redis-benchmark")) {
                System.out.println("[bench] redis-benchmark, 50 clients");
                ceiling = redisBenchmark(tool, quick ? 50_000 : options.integer("rb-requests", 200_000));
            }

            write(out, options, redis.version(), threads, pool, rows, interleaved, latency, memory, ceiling);
        }
    }

    private static List<Row> jmh(Path out, Options options, String include, int threads, int pool, String keys)
            throws RunnerException, IOException {
        boolean quick = options.quick();
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("dev\\.tollgate\\.bench\\.decision\\." + include)
                .forks(1)
                .warmupIterations(options.integer("warmup", quick ? 1 : 2))
                .warmupTime(TimeValue.milliseconds(options.duration("time", java.time.Duration.ofSeconds(1)).toMillis()))
                .measurementIterations(options.integer("iterations", quick ? 2 : 3))
                .measurementTime(TimeValue.milliseconds(options.duration("time", java.time.Duration.ofSeconds(1)).toMillis()))
                .threads(threads)
                .mode(Mode.Throughput)
                .timeUnit(TimeUnit.SECONDS)
                .shouldFailOnError(false)
                .addProfiler(GCProfiler.class)
                .jvmArgsAppend("-Xmx1g", "-D" + Clients.PORT + "=" + System.getProperty(Clients.PORT),
                        "-D" + Clients.POOL + "=" + pool, "-D" + Clients.OUT + "=" + out,
                        "-D" + Clients.TIMEOUT_MS + "=" + System.getProperty(Clients.TIMEOUT_MS));
        if (keys != null) {
            b.param("keys", keys);
        }
        String prof = options.get("prof", null);
        if (prof != null) {
            // e.g. prof=jfr (recordings go under target/bench/decision/jfr) or prof=stack
            int colon = prof.indexOf(':');
            String name = colon < 0 ? prof : prof.substring(0, colon);
            String init = colon < 0 ? "" : prof.substring(colon + 1);
            if (name.equals("jfr") && !init.contains("dir=")) {
                init = (init.isEmpty() ? "" : init + ";") + "dir=" + out.resolve("jfr");
            }
            b.addProfiler(name, init);
        }
        Collection<RunResult> results = new Runner(b.build()).run();
        List<Row> rows = new ArrayList<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            String bench = name.substring(name.lastIndexOf('.') + 1);
            String k = r.getParams().getParam("keys");
            Result<?> primary = r.getPrimaryResult();
            Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            String statsName = bench + (k == null ? "" : "-keys=" + k) + "-t" + threads + "-pool" + pool;
            rows.add(new Row(bench, k == null ? 0 : Integer.parseInt(k), threads, pool, primary.getScore(),
                    primary.getScoreError(), alloc == null ? Double.NaN : alloc.getScore(),
                    readStats(out.resolve("stats").resolve(statsName + ".properties"))));
        }
        return rows;
    }

    private static Map<String, String> readStats(Path file) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return m;
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        for (String k : new java.util.TreeSet<>(p.stringPropertyNames())) {
            m.put(k, p.getProperty(k));
        }
        return m;
    }

    private static Map<String, RedisBenchmarkTool.Result> redisBenchmark(RedisBenchmarkTool tool, int requests)
            throws Exception {
        Map<String, RedisBenchmarkTool.Result> m = new LinkedHashMap<>();
        try (RedisClient jedis = Clients.redisClient("bench-rb"); RateLimiter limiter = Clients.limiter(true)) {
            // Tollgate's own EVALSHA for one decision, as Redis received it: its script (loaded by
            // that decision), its key and its arguments
            SentCommand sent = SentCommand.capture(limiter, "198.51.100.77");
            String[] many = sent.forClient("__rand_int__");
            String trivial = jedis.scriptLoad("return 1");
            m.put("PING", tool.run(50, requests, 0, "PING"));
            m.put("EVALSHA return 1", tool.run(50, requests, 0, "EVALSHA", trivial, "0"));
            m.put("EVALSHA bucket.lua, 10,000 keys", tool.run(50, requests, 10_000, many));
            m.put("EVALSHA bucket.lua, 1 busy key", tool.run(50, requests, 0, sent.forClient("192.0.2.1")));
            // The latency floor of any script that keeps state: one connection, one command at a
            // time, from C. "TIME, GET, SET" does only the Redis calls bucket.lua makes, no arithmetic.
            String stateful = jedis.scriptLoad("local t = redis.call('TIME') local v = redis.call('GET', KEYS[1])"
                    + " redis.call('SET', KEYS[1], t[1], 'PX', 100) return {0, 0, 0, 0, 0}");
            String[] statefulCall = many.clone();
            statefulCall[1] = stateful;
            int one = Math.max(5_000, requests / 10);
            m.put(ONE + "PING", tool.run(1, one, 0, "PING"));
            m.put(ONE + "EVALSHA `return 1`", tool.run(1, one, 0, "EVALSHA", trivial, "0"));
            m.put(ONE + "EVALSHA of TIME, GET, SET (nothing else)", tool.run(1, one, 10_000, statefulCall));
            m.put(ONE + "EVALSHA bucket.lua", tool.run(1, one, 10_000, many));
            jedis.flushAll();
        }
        return m;
    }

    /** The prefix of the one-connection runs in the redis-benchmark results. */
    static final String ONE = "1 connection: ";

    // ---- report ----

    private static final Map<String, String> LABELS = new LinkedHashMap<>();

    static {
        LABELS.put("ping", "Jedis PING (floor)");
        LABELS.put("evalshaTrivial", "Jedis EVALSHA `return 1` (floor)");
        LABELS.put("tollgateCheck", "Tollgate `RateLimiter.check`, Redis");
        LABELS.put("tollgateUnpipelined", "Tollgate `RateLimiter.check`, Redis, auto-pipelining off");
        LABELS.put("bucket4j", "Bucket4j Jedis (CAS)");
        LABELS.put("article", "article's script (EVAL)");
        LABELS.put("localCheck", "Tollgate `RateLimiter.check`, in memory");
    }

    private static Row find(List<Row> rows, String bench, int keys, int threads, int pool) {
        for (Row r : rows) {
            if (r.bench.equals(bench) && r.keys == keys && r.threads == threads && r.pool == pool) {
                return r;
            }
        }
        return null;
    }

    private static double ops(List<Row> rows, String bench, int keys, int threads, int pool) {
        Row r = find(rows, bench, keys, threads, pool);
        return r == null ? Double.NaN : r.opsPerSecond;
    }

    private static void write(Path out, Options options, String redisVersion, List<Integer> threads, int pool,
                              List<Row> rows, List<InterleavedThroughput.Figure> interleaved,
                              List<Interleaved.Figure> latency, MemoryProbe memory,
                              Map<String, RedisBenchmarkTool.Result> ceiling) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Decision benchmarks\n\n");
        md.append("Run on ").append(LocalDate.now()).append(" with `").append(options.quick() ? "quick" : "full")
                .append("` settings (").append(options).append("). One JMH fork per figure, throughput mode;")
                .append(" all contenders use one Redis and one connection set-up (Jedis 8 `RedisClient`, pool of ")
                .append(pool).append(", 10 s timeout: a borrow that waits longer fails, and under 64 threads commons-pool2 can make one thread wait over 1 s). Limit: ").append(Clients.LIMIT).append(".\n\n");
        md.append(Machine.markdown(Machine.describe(redisVersion))).append('\n');

        // throughput by threads
        Table thr = new Table(header("contender", "keys", threads, "B/op (1 thread)",
                "Redis commands per decision (inside scripts too)", "Redis CPU µs/op (1 thread)"));
        List<String[]> order = new ArrayList<>();
        order.add(new String[] {"ping", "0"});
        order.add(new String[] {"evalshaTrivial", "0"});
        for (String keys : List.of("10000", "1")) {
            for (String b : List.of("tollgateCheck", "bucket4j", "article", "localCheck")) {
                order.add(new String[] {b, keys});
            }
        }
        for (String[] o : order) {
            int keys = Integer.parseInt(o[1]);
            if (find(rows, o[0], keys, threads.get(0), pool) == null) {
                continue;
            }
            List<Object> cells = new ArrayList<>();
            cells.add(LABELS.get(o[0]));
            cells.add(keys == 0 ? "-" : keys == 1 ? "1 (busy)" : String.format(Locale.ROOT, "%,d", keys));
            for (int t : threads) {
                cells.add(Table.num(ops(rows, o[0], keys, t, pool)));
            }
            Row first = find(rows, o[0], keys, threads.get(0), pool);
            cells.add(Table.num(first.allocBytesPerOp));
            cells.add(o[0].startsWith("local") ? "none" : first.commandsPerOp());
            cells.add(o[0].startsWith("local") ? "-" : Table.num(first.redisCpuMicrosPerOp()));
            thr.row(cells.toArray());
        }
        md.append("## Throughput, decisions per second\n\n").append(thr.markdown()).append('\n');
        md.append("Redis commands per decision come from `INFO commandstats` over the whole trial (warm-up"
                + " included) and count the commands a script runs as well; \"Redis CPU µs/op\" is redis-server's"
                + " user+system CPU per decision, network handling included. B/op is JMH's gc.alloc.rate.norm: bytes"
                + " allocated in the client JVM per decision, Jedis included.\n\n");

        Row pool64 = find(rows, "tollgateCheck", 10000, 64, 64);
        Row ping64 = find(rows, "ping", 0, 64, 64);
        if (pool64 != null && ping64 != null && pool != 64) {
            md.append("Pool check, 64 threads with a pool of 64 instead of ").append(pool).append(": Tollgate ")
                    .append(Table.num(pool64.opsPerSecond)).append("/s (")
                    .append(Table.ratio(pool64.opsPerSecond / ops(rows, "tollgateCheck", 10000, 64, pool)))
                    .append(" of pool ").append(pool).append("), PING ").append(Table.num(ping64.opsPerSecond))
                    .append("/s (").append(Table.ratio(ping64.opsPerSecond / ops(rows, "ping", 0, 64, pool)))
                    .append(").\n\n");
        }

        if (!interleaved.isEmpty()) {
            Table it = new Table("contender (" + threads.get(threads.size() - 1) + " threads)", "keys",
                    "decisions/s, median of slices", "min", "max");
            for (InterleavedThroughput.Figure f : interleaved) {
                it.row(LABELS.get(f.name()), f.busy() ? "1 (busy)" : f.name().equals("ping") || f.name().startsWith("evalsha") ? "-" : "10,000", Table.num(f.median()), Table.num(f.min()),
                        Table.num(f.max()));
            }
            md.append("## Throughput at ").append(threads.get(threads.size() - 1)).append(" threads, interleaved\n\n")
                    .append("The same worker threads run one contender at a time in slices, contender after contender, ")
                    .append(interleaved.get(0).slices()).append(" rounds; so a change in background load touches all alike.")
                    .append(" The goals below use these figures first.\n\n").append(it.markdown()).append('\n');
        }

        // latency, single thread
        int t1 = threads.get(0);
        double ping1 = ops(rows, "ping", 0, t1, pool);
        Table lat = new Table("contender (" + t1 + " thread, 10,000 keys)", "mean µs/decision", "vs PING");
        for (String b : List.of("ping", "evalshaTrivial", "tollgateCheck", "bucket4j", "article",
                "localCheck")) {
            int keys = b.equals("ping") || b.equals("evalshaTrivial") ? 0 : 10000;
            double o = ops(rows, b, keys, t1, pool);
            if (!Double.isNaN(o)) {
                lat.row(LABELS.get(b), Table.num(1e6 / o), Table.ratio(ping1 / o));
            }
        }
        if (!latency.isEmpty()) {
            Interleaved.Figure ping = latency.get(0);
            Table il = new Table("contender (1 thread, 10,000 keys)", "P50 µs", "P90 µs", "P99 µs", "mean µs",
                    "P50 vs PING", "mean vs PING");
            for (Interleaved.Figure f : latency) {
                il.row(LABELS.get(f.name()), Table.num(f.p50Micros()), Table.num(f.p90Micros()), Table.num(f.p99Micros()),
                        Table.num(f.meanMicros()), Table.ratio(f.p50Micros() / ping.p50Micros()),
                        Table.ratio(f.meanMicros() / ping.meanMicros()));
            }
            md.append("## Latency, one thread, interleaved\n\nEach round calls every contender once in a rotating"
                    + " order (").append(latency.get(0).count()).append(" rounds measured), so background load on the"
                    + " shared machine hits all alike.\n\n").append(il.markdown()).append('\n');
        }
        md.append("## Latency, one thread, from JMH (mean = 1 / throughput; contenders run one after another)\n\n")
                .append(lat.markdown()).append('\n');

        // memory
        if (!memory.singles.isEmpty()) {
            Table mem = new Table("bucket with one limit", "MEMORY USAGE, key `" + MemoryProbe.KEY + "`",
                    "MEMORY USAGE, key `" + MemoryProbe.SHORT_KEY + "`", "PTTL after write, ms", "value");
            for (MemoryProbe.Single s : memory.singles) {
                mem.row(s.who(), s.memoryUsage(), s.shortKeyMemoryUsage(), s.pttlMillis() < 0 ? "-" : s.pttlMillis(),
                        "`" + s.value() + "`");
            }
            md.append("## Redis memory per bucket\n\nBytes of `MEMORY USAGE` for one bucket after one request, each"
                    + " contender written under the same key names (Tollgate's own, and a bare address), so only the"
                    + " value and its encoding differ:\n\n").append(mem.markdown()).append('\n');
            Table bulk = new Table("10,000 live buckets", "keys present", "used_memory growth per key, bytes");
            for (MemoryProbe.Bulk b : memory.bulks) {
                bulk.row(b.who(), b.keys(), Table.num(b.bytesPerKey()));
            }
            md.append("Growth of `used_memory` over 10,000 buckets (includes key and expiry table slots):\n\n")
                    .append(bulk.markdown()).append('\n');
            Table exp = new Table("bucket", "write", "PTTL right after, ms", "exists then", "checked after, ms",
                    "exists then");
            for (MemoryProbe.Expiry e : memory.expiries) {
                exp.row(e.who(), e.write(), e.pttlMillis(), e.existsBefore(), e.checkedAfterMillis(), e.existsAfter());
            }
            md.append("## Idle buckets expire\n\n").append(exp.markdown()).append('\n');
        }

        // redis-benchmark
        if (!ceiling.isEmpty()) {
            Table rb = new Table("redis-benchmark, 50 connections", "requests/s");
            Table floor = new Table("redis-benchmark, 1 connection, 10,000 keys", "requests/s", "P50 µs", "P50 vs PING");
            RedisBenchmarkTool.Result pingAlone = ceiling.get(ONE + "PING");
            ceiling.forEach((k, v) -> {
                if (k.startsWith(ONE)) {
                    floor.row(k.substring(ONE.length()), Table.num(v.opsPerSecond()), Table.num(v.p50Micros()),
                            pingAlone == null ? "-" : Table.ratio(v.p50Micros() / pingAlone.p50Micros()));
                } else {
                    rb.row(k, Table.num(v.opsPerSecond()));
                }
            });
            md.append("## Server-side ceiling\n\n").append(rb.markdown()).append('\n');
            md.append("## The latency floor of a script with state\n\nOne command at a time from C: what any script"
                    + " that reads Redis' clock, reads a key and writes it costs, against PING.\n\n")
                    .append(floor.markdown()).append('\n');
        }

        // goals
        md.append("## Goals of issue 6\n\n").append(goals(rows, threads, pool, interleaved, latency, memory, ceiling).markdown())
                .append('\n');

        Files.writeString(out.resolve("decision.md"), md.toString(), StandardCharsets.UTF_8);

        // CSV of every JMH figure, JSON of everything
        Table csv = new Table("benchmark", "keys", "threads", "pool", "ops_per_s", "error", "alloc_bytes_per_op",
                "redis_calls_per_op", "redis_cpu_us_per_op", "fallbacks");
        List<Object> json = new ArrayList<>();
        for (Row r : rows) {
            csv.row(r.bench, r.keys, r.threads, r.pool, String.format(Locale.ROOT, "%.1f", r.opsPerSecond),
                    String.format(Locale.ROOT, "%.1f", r.error), String.format(Locale.ROOT, "%.1f", r.allocBytesPerOp),
                    String.format(Locale.ROOT, "%.3f", r.redisCallsPerOp()),
                    String.format(Locale.ROOT, "%.2f", r.redisCpuMicrosPerOp()), r.redis.getOrDefault("fallbacks", ""));
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("benchmark", r.bench);
            j.put("keys", r.keys);
            j.put("threads", r.threads);
            j.put("pool", r.pool);
            j.put("opsPerSecond", r.opsPerSecond);
            j.put("error", r.error);
            j.put("allocBytesPerOp", r.allocBytesPerOp);
            j.put("redis", r.redis);
            json.add(j);
        }
        Files.writeString(out.resolve("decision.csv"), csv.csv(), StandardCharsets.UTF_8);
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("machine", Machine.describe(redisVersion));
        all.put("jmh", json);
        List<Object> mem = new ArrayList<>();
        memory.singles.forEach(s -> mem.add(Map.of("who", s.who(), "memoryUsage", s.memoryUsage(),
                "memoryUsageShortKey", s.shortKeyMemoryUsage(), "pttl", s.pttlMillis())));
        memory.bulks.forEach(b -> mem.add(Map.of("who", b.who(), "keys", b.keys(), "bytesPerKey", b.bytesPerKey())));
        all.put("memory", mem);
        Map<String, Object> rb = new LinkedHashMap<>();
        ceiling.forEach((k, v) -> rb.put(k, v.opsPerSecond()));
        all.put("redisBenchmark", rb);
        Files.writeString(out.resolve("decision.json"), Json.write(all), StandardCharsets.UTF_8);

        // plot
        if (threads.size() > 1) {
            Map<String, List<double[]>> series = new LinkedHashMap<>();
            for (String b : List.of("ping", "tollgateCheck", "bucket4j", "article", "localCheck")) {
                int keys = b.equals("ping") ? 0 : 10000;
                List<double[]> pts = new ArrayList<>();
                for (int t : threads) {
                    double o = ops(rows, b, keys, t, pool);
                    if (!Double.isNaN(o)) {
                        pts.add(new double[] {t, o});
                    }
                }
                if (!pts.isEmpty()) {
                    series.put(LABELS.get(b).replace("`", ""), pts);
                }
            }
            Charts.lines(out.resolve("throughput-by-threads.png"),
                    "Decisions per second against threads (10,000 keys, one Redis, 2 cores)", "threads",
                    "decisions per second (log)", series, true, true);
        }
        System.out.println();
        System.out.println(md);
        System.out.println("[bench] written: " + out.resolve("decision.md") + ", decision.csv, decision.json"
                + (threads.size() > 1 ? ", throughput-by-threads.png" : ""));
    }

    private static String[] header(String a, String b, List<Integer> threads, String... tail) {
        List<String> h = new ArrayList<>(List.of(a, b));
        for (int t : threads) {
            h.add(t + (t == 1 ? " thread" : " threads"));
        }
        h.addAll(List.of(tail));
        return h.toArray(new String[0]);
    }

    private static double interleaved(List<InterleavedThroughput.Figure> figures, String name, boolean busy) {
        for (InterleavedThroughput.Figure f : figures) {
            if (f.name().equals(name) && f.busy() == busy) {
                return f.median();
            }
        }
        return Double.NaN;
    }

    private static Table goals(List<Row> rows, List<Integer> threads, int pool,
                               List<InterleavedThroughput.Figure> il, List<Interleaved.Figure> latency,
                               MemoryProbe memory, Map<String, RedisBenchmarkTool.Result> ceiling) {
        Table g = new Table("goal", "target", "measured", "met?");
        int t1 = threads.get(0);
        int tMax = threads.get(threads.size() - 1);
        if (!latency.isEmpty()) {
            double p50 = Double.NaN;
            double mean = Double.NaN;
            for (Interleaved.Figure f : latency) {
                if (f.name().equals("tollgateCheck")) {
                    p50 = f.p50Micros() / latency.get(0).p50Micros();
                    mean = f.meanMicros() / latency.get(0).meanMicros();
                }
            }
            g.row("decision latency, 1 thread, vs bare Jedis PING (interleaved, P50; mean)", "<= 1.2x",
                    Table.ratio(p50) + "; " + Table.ratio(mean), met(p50 <= 1.2 && mean <= 1.2, p50));
        }
        double lat = ops(rows, "ping", 0, t1, pool) / ops(rows, "tollgateCheck", 10000, t1, pool);
        g.row("decision latency, 1 thread, vs bare Jedis PING (JMH means)", "<= 1.2x", Table.ratio(lat),
                met(lat <= 1.2, lat));
        double tg = interleaved(il, "tollgateCheck", false);
        double vsB4j = tg / interleaved(il, "bucket4j", false);
        double vsB4jJmh = ops(rows, "tollgateCheck", 10000, tMax, pool) / ops(rows, "bucket4j", 10000, tMax, pool);
        g.row("throughput, " + tMax + " threads, 10,000 keys, vs Bucket4j Jedis (interleaved; JMH)", ">= 2x",
                Table.ratio(vsB4j) + "; " + Table.ratio(vsB4jJmh), met(vsB4j >= 2, vsB4j));
        double vsArticle = tg / interleaved(il, "article", false);
        double vsArticleJmh = ops(rows, "tollgateCheck", 10000, tMax, pool) / ops(rows, "article", 10000, tMax, pool);
        g.row("throughput, " + tMax + " threads, 10,000 keys, vs the article's script (interleaved; JMH)", ">= 1.5x",
                Table.ratio(vsArticle) + "; " + Table.ratio(vsArticleJmh), met(vsArticle >= 1.5, vsArticle));
        Row busy = find(rows, "tollgateCheck", 1, tMax, pool);
        double calls = busy == null ? Double.NaN : busy.scriptCallsPerOp();
        g.row("one busy key: denials answered without a Redis call", "~0 EVALSHA per denied decision",
                Table.num(calls) + " EVALSHA per decision", met(calls < 0.01, calls));
        double busyB4j = interleaved(il, "tollgateCheck", true) / interleaved(il, "bucket4j", true);
        double busyB4jJmh = ops(rows, "tollgateCheck", 1, tMax, pool) / ops(rows, "bucket4j", 1, tMax, pool);
        g.row("one busy key, " + tMax + " threads, vs Bucket4j Jedis (interleaved; JMH)", ">= 20x",
                Table.ratio(busyB4j) + "; " + Table.ratio(busyB4jJmh), met(busyB4j >= 20, busyB4j));
        RedisBenchmarkTool.Result rb = ceiling.get("EVALSHA bucket.lua, 10,000 keys");
        double vsRb = rb == null ? Double.NaN : tg / rb.opsPerSecond();
        double vsRbJmh = rb == null ? Double.NaN : ops(rows, "tollgateCheck", 10000, tMax, pool) / rb.opsPerSecond();
        g.row("throughput, " + tMax + " threads, vs redis-benchmark on the same script, 50 connections"
                + " (interleaved; JMH)", ">= 0.8x", Table.ratio(vsRb) + "; " + Table.ratio(vsRbJmh), met(vsRb >= 0.8, vsRb));
        double readable = Double.NaN;
        double compact = Double.NaN;
        for (MemoryProbe.Single s : memory.singles) {
            if (s.who().startsWith("Tollgate (")) {
                readable = s.memoryUsage();
            } else if (s.who().startsWith("Tollgate") && s.who().contains("`t:`")) {
                compact = s.memoryUsage();
            }
        }
        g.row("Redis memory per active bucket, one limit (MEMORY USAGE)", "<= 64 bytes", Table.num(readable)
                + " bytes with readable keys (the default); " + Table.num(compact) + " with `key-format=compact`,"
                + " prefix `t:`", met(compact <= 64, compact) + " with compact keys");
        return g;
    }

    private static String met(boolean ok, double measured) {
        return Double.isNaN(measured) ? "not measured" : ok ? "**met**" : "**not met**";
    }
}
