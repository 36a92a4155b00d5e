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
 * What a decision costs as the filter calls it, in one JMH run ({@link EngineBench} and
 * {@link FilterBench}, one thread, GC profiler): time and bytes allocated per decision of the
 * in-memory check and of a check over Redis, and of the filter path. Writes {@code engine.md}
 * under {@code target/bench/engine/}. The store under the check, and so the engine's own share
 * (check minus store), is measured in filter-core's {@code jmh} source set ({@code StoreBench},
 * {@code EngineInterleaved}).
 *
 * <p>Options: {@code quick}, {@code clients=10000,50000}, {@code forks=1}, {@code iterations=5}, {@code warmup=3},
 * {@code time=1s}, {@code only=regex} (of the benchmark methods), {@code prof=name} (a further
 * JMH profiler, e.g. {@code jfr} or {@code stack}).
 */
public final class EngineRun {

    private EngineRun() {
    }

    public static void run(Path out, Options options) throws Exception {
        RedisServer.deleteTree(out);
        Files.createDirectories(out);
        String only = options.get("only", "localCheck|redisCheck");
        RedisServer redis = only.contains("redis") ? RedisServer.start(out.resolve("redis")) : null;
        try {
            Map<String, double[]> figures = jmh(out, options, only, redis);
            write(out, options, redis == null ? "none" : redis.version(), figures);
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

    private static void write(Path out, Options options, String redisVersion, Map<String, double[]> f)
            throws Exception {
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
        Files.writeString(out.resolve("engine.md"), md.toString(), StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(md);
    }
}
