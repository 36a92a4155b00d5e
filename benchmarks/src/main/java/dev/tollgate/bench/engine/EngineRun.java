package dev.tollgate.bench.engine;

import dev.tollgate.bench.Clients;
import dev.tollgate.bench.Options;
import dev.tollgate.bench.RedisServer;
import dev.tollgate.bench.report.Machine;
import dev.tollgate.bench.report.Table;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The engine's own cost in one JMH run ({@link EngineBench}, one thread, GC profiler): time and
 * bytes allocated per decision of the in-memory check and of the store under it, and the
 * difference, which is the engine's overhead; and the allocation of a check over Redis. Writes
 * {@code engine.md} under {@code target/bench/engine/}.
 *
 * <p>Options: {@code quick}, {@code clients=10000,50000}, {@code rounds=1000000} (interleaved), {@code no-interleaved}, {@code forks=1}, {@code iterations=5}, {@code warmup=3},
 * {@code time=1s}, {@code only=regex} (of the benchmark methods), {@code prof=name} (a further
 * JMH profiler, e.g. {@code jfr} or {@code stack}).
 */
public final class EngineRun {

    private EngineRun() {
    }

    public static void run(Path out, Options options) throws Exception {
        RedisServer.deleteTree(out);
        Files.createDirectories(out);
        String only = options.get("only", "localStore|localCheck|redisCheck");
        RedisServer redis = only.contains("redis") ? RedisServer.start(out.resolve("redis")) : null;
        try {
            Map<String, double[]> figures = jmh(out, options, only, redis);
            Map<String, EngineInterleaved.Figure[]> interleaved = new LinkedHashMap<>();
            if (!options.flag("no-interleaved")) {
                int rounds = options.integer("rounds", options.quick() ? 100_000 : 1_000_000);
                for (String clients : options.get("clients", "10000,50000").split(",")) {
                    System.out.println("[bench] interleaved check and store, " + clients + " clients, " + rounds + " rounds");
                    interleaved.put(clients, EngineInterleaved.run(Integer.parseInt(clients), 300_000, rounds));
                }
            }
            write(out, options, redis == null ? "none" : redis.version(), figures, interleaved);
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    /** Per benchmark: ns/op, its error, B/op. */
    private static Map<String, double[]> jmh(Path out, Options options, String only, RedisServer redis)
            throws Exception {
        boolean quick = options.quick();
        long slice = options.duration("time", Duration.ofSeconds(1)).toMillis();
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("dev\\.tollgate\\.bench\\.engine\\.(EngineBench|FilterBench)\\.(" + only + ")$")
                .forks(options.integer("forks", 1))
                .warmupIterations(options.integer("warmup", quick ? 2 : 3))
                .warmupTime(TimeValue.milliseconds(slice))
                .measurementIterations(options.integer("iterations", quick ? 3 : 5))
                .measurementTime(TimeValue.milliseconds(slice))
                .threads(1)
                .param("clients", options.get("clients", "10000,50000").split(","))
                .shouldFailOnError(false)
                .addProfiler(GCProfiler.class)
                // Tollgate logs nothing per allowed decision; the refusals a random client meets
                // now and then would otherwise print lines into the figures.
                .jvmArgsAppend("-Xmx1g", "-Djava.util.logging.config.file=" + quietLogging(out),
                        "-D" + Clients.PORT + "=" + (redis == null ? "0" : redis.port()));
        String prof = options.get("prof", null);
        if (prof != null) {
            int colon = prof.indexOf(':');
            String name = colon < 0 ? prof : prof.substring(0, colon);
            String init = colon < 0 ? "" : prof.substring(colon + 1);
            if (name.equals("jfr") && !init.contains("dir=")) {
                init = (init.isEmpty() ? "" : init + ";") + "dir=" + out.resolve("jfr");
            }
            b.addProfiler(name, init);
        }
        Map<String, double[]> figures = new LinkedHashMap<>();
        for (RunResult r : new Runner(b.build()).run()) {
            String name = r.getParams().getBenchmark() + " " + r.getParams().getParam("clients");
            Result<?> primary = r.getPrimaryResult();
            Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            figures.put(name.substring(name.lastIndexOf('.') + 1), new double[] {primary.getScore(),
                    primary.getScoreError(), alloc == null ? Double.NaN : alloc.getScore()});
        }
        return figures;
    }

    private static Path quietLogging(Path out) throws Exception {
        Path file = out.resolve("logging.properties");
        Files.writeString(file, ".level=WARNING\nhandlers=java.util.logging.ConsoleHandler\n", StandardCharsets.UTF_8);
        return file;
    }

    private static void write(Path out, Options options, String redisVersion, Map<String, double[]> f,
                              Map<String, EngineInterleaved.Figure[]> interleaved) throws Exception {
        StringBuilder md = new StringBuilder("# The engine's own cost\n\n");
        md.append("Run on ").append(LocalDate.now()).append(" (").append(options)
                .append("). JMH, one thread, average time, GC profiler; one of 10,000 clients at random, limit ")
                .append(EngineBench.LIMIT).append(" (every decision allows).\n\n").append(Machine.markdown(Machine.describe(redisVersion)))
                .append('\n');
        Table t = new Table("benchmark", "clients", "ns/decision", "± (99.9 %)", "B/decision");
        for (Map.Entry<String, double[]> e : f.entrySet()) {
            String[] name = e.getKey().split(" ");
            t.row(name[0], name[1], Table.num(e.getValue()[0]), Table.num(e.getValue()[1]), Table.num(e.getValue()[2]));
        }
        md.append(t.markdown()).append('\n');
        for (String clients : options.get("clients", "10000,50000").split(",")) {
            double[] check = f.get("localCheck " + clients);
            double[] store = f.get("localStore " + clients);
            if (check != null && store != null) {
                md.append("Engine overhead over ").append(clients).append(" clients (localCheck - localStore): ")
                        .append(Table.num(check[0] - store[0])).append(" ns and ").append(Table.num(check[2] - store[2]))
                        .append(" B per decision; the check takes ").append(Table.ratio(check[0] / store[0]))
                        .append(" the store's time.\n\n");
            }
        }
        if (!interleaved.isEmpty()) {
            Table it = new Table("clients", "store P50 ns", "check P50 ns", "check - store, P50", "check / store, P50",
                    "store mean ns", "check mean ns", "check - store, mean");
            for (Map.Entry<String, EngineInterleaved.Figure[]> e : interleaved.entrySet()) {
                EngineInterleaved.Figure s = e.getValue()[0];
                EngineInterleaved.Figure c = e.getValue()[1];
                it.row(e.getKey(), Table.num(s.p50Nanos()), Table.num(c.p50Nanos()), Table.num(c.p50Nanos() - s.p50Nanos()),
                        Table.ratio(c.p50Nanos() / s.p50Nanos()), Table.num(s.meanNanos()), Table.num(c.meanNanos()),
                        Table.num(c.meanNanos() - s.meanNanos()));
            }
            md.append("Interleaved (one thread, the store and the check called in turn, each timed; ")
                    .append(interleaved.values().iterator().next()[0].count()).append(" rounds):\n\n")
                    .append(it.markdown()).append('\n');
        }
        Files.writeString(out.resolve("engine.md"), md.toString(), StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(md);
    }
}
