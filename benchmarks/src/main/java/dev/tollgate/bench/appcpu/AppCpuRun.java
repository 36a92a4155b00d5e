package dev.tollgate.bench.appcpu;

import dev.tollgate.bench.Options;
import dev.tollgate.bench.Processes;
import dev.tollgate.bench.RedisServer;
import dev.tollgate.bench.load.LoadGenerator;
import dev.tollgate.bench.report.Machine;
import dev.tollgate.bench.report.Table;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The allowed path's CPU in the application (issue 15): one application JVM ({@link AppCpuServer},
 * an embedded Tomcat 11) with a bare answer, one Jedis {@code PING} per request, the bare answer
 * behind Tollgate allowing every request, and the bare answer behind Tollgate refusing; open-loop
 * load at {@code rate} requests/s over {@code connections} keep-alive connections, one path per
 * phase, phases interleaved ({@code bare ping allowed refused bare ping ...}) so that a change in
 * the shared machine's load touches every path alike. The application's CPU per request is its
 * process CPU time ({@code /proc/<pid>/stat}, user + system, every thread) over the phase, divided
 * by the answers of the phase; the same for Redis.
 *
 * <p>The figure of the issue is {@code (allowed - bare) / (ping - bare)}: what an allowed decision
 * adds to a request against what one Redis round trip adds, both from the same servlet in the same
 * round. {@code allowed / ping} (whole requests) is reported too.
 *
 * <p>With {@code calls}, runs {@link CallCost} instead (one thread, no server: the client's own
 * CPU and allocation per call; {@code calls-per-round=20000}, {@code rounds}).
 *
 * <p>Options: {@code phase=10s rounds=5 warmup=15s rate=2000 connections=100 clients=10000
 * paths=bare,ping,allowed,refused jfr perf-map} ({@code perf-map}: the JIT's symbols
 * for Linux {@code perf} in the map file perf reads ({@code perf-<pid>.map} in the system temporary directory) when the application exits; {@code jfr}: a flight recording of the application JVM,
 * {@code profile} settings, in {@code target/bench/appcpu/app.jfr}; with {@code paths=allowed} it
 * holds the allowed path alone).
 */
public final class AppCpuRun {

    private static final List<String> ALL = List.of("bare", "ping", "allowed", "refused");

    /** One phase of one path. */
    record Phase(String path, int round, long answered, long errors, long other, long notSent, long refused,
                 double seconds, double appCpuSeconds, double jitCpuSeconds, double redisCpuSeconds, Histogram latency) {

        double appMicrosPerRequest() {
            return appCpuSeconds * 1e6 / answered;
        }

        double jitMicrosPerRequest() {
            return jitCpuSeconds * 1e6 / answered;
        }

        double redisMicrosPerRequest() {
            return redisCpuSeconds * 1e6 / answered;
        }
    }

    private AppCpuRun() {
    }

    public static void run(Path out, Options o) throws Exception {
        Duration length = o.duration("phase", Duration.ofSeconds(10));
        Duration warmup = o.duration("warmup", Duration.ofSeconds(15));
        int rounds = o.integer("rounds", 5);
        int rate = o.integer("rate", 2000);
        int connections = o.integer("connections", 100);
        int clients = o.integer("clients", 10_000);
        List<String> paths = Arrays.asList(o.get("paths", String.join(",", ALL)).split(","));
        for (String p : paths) {
            if (!ALL.contains(p)) {
                throw new IllegalStateException("paths=" + o.get("paths", "") + ": '" + p + "' is not one of " + ALL);
            }
        }
        RedisServer.deleteTree(out);
        Files.createDirectories(out);
        if (o.flag("calls")) {
            int calls = o.integer("calls-per-round", 20_000);
            try (RedisServer redis = RedisServer.start(out.resolve("redis"))) {
                System.out.println("[bench] appcpu calls: one thread, " + calls + " calls per contender per round, "
                        + rounds + " rounds, in turn; " + redis.version());
                String md = "# The client's own cost of one call\n\n" + LocalDate.now() + " (" + o + "), load average at the end: "
                        + loadAverage() + "\n\n" + CallCost.markdown(CallCost.run(redis.port(), calls, rounds));
                Files.writeString(out.resolve("calls.md"), md, StandardCharsets.UTF_8);
                System.out.println(md);
            }
            return;
        }
        System.out.printf(Locale.ROOT, "[bench] appcpu: %s at %d req/s over %d connections, %d rounds of %s phases,"
                + " results in %s%n", paths, rate, connections, rounds, length, out);
        List<Phase> phases = new ArrayList<>();
        try (RedisServer redis = RedisServer.start(out.resolve("redis"));
             App app = App.start(out, redis.port(), o.flag("jfr"), o.flag("perf-map"));
             LoadGenerator load = new LoadGenerator("127.0.0.1", app.port, connections)) {
            System.out.println("[bench] " + redis.version() + " on 127.0.0.1:" + redis.port());
            for (String p : paths) {
                System.out.println("[bench] warm-up " + p + " " + warmup.toSeconds() + " s");
                load.openLoop(url(p), ids(p, clients), rate, warmup);
            }
            Thread.sleep(1_000);
            for (int r = 1; r <= rounds; r++) {
                for (String p : paths) {
                    Phase ph = phase(load, p, r, ids(p, clients), rate, length, app.pid, redis.pid());
                    phases.add(ph);
                    System.out.printf(Locale.ROOT, "[bench]   round %d %-8s app %.1f µs/req (JIT %.1f), Redis %.1f µs/req, P50 %.0f µs,"
                                    + " P99 %.0f µs, %d answered (%d refused, %d errors, %d not sent)%n",
                            r, p, ph.appMicrosPerRequest(), ph.jitMicrosPerRequest(), ph.redisMicrosPerRequest(), us(ph.latency, 50),
                            us(ph.latency, 99), ph.answered, ph.refused, ph.errors, ph.notSent);
                    Thread.sleep(500);
                }
            }
            write(out, o, redis.version(), paths, phases, rate, connections, clients, length, rounds);
        }
    }

    private static String url(String path) {
        return switch (path) {
            case "allowed" -> "/allowed/x";
            case "refused" -> "/refused/x";
            default -> "/" + path;
        };
    }

    /** The refused path has one client (it exceeds its limit); the others rotate over {@code clients}. */
    private static List<String> ids(String path, int clients) {
        int n = path.equals("refused") ? 1 : clients;
        List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add("client-" + i);
        }
        return ids;
    }

    private static Phase phase(LoadGenerator load, String path, int round, List<String> ids, int rate, Duration length, long app,
                               long redis) throws InterruptedException {
        double app0 = cpuSeconds(app);
        double jit0 = jitSeconds(app);
        double redis0 = cpuSeconds(redis);
        long t0 = System.nanoTime();
        LoadGenerator.Group r = load.openLoop(url(path), ids, rate, length);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Phase(path, round, r.answered(), r.errors.get(), r.other.get(), r.notSent.get(),
                r.denied.getTotalCount(), seconds, cpuSeconds(app) - app0, jitSeconds(app) - jit0, cpuSeconds(redis) - redis0,
                r.all());
    }

    /**
     * CPU seconds so far of the JIT compiler threads of a JVM ({@code C1 CompilerThre...},
     * {@code C2 CompilerThre...}), from /proc (Linux): shown apart, since a path the JIT is still
     * compiling is charged for it.
     */
    static double jitSeconds(long pid) {
        double sum = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (comm.contains("CompilerThre")) {
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        sum += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
                    }
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException e) {
            return Double.NaN;
        }
        return sum;
    }

    /** User plus system CPU seconds of a process and its threads so far, from /proc (Linux). */
    static double cpuSeconds(long pid) {
        double seconds = Processes.cpuSeconds(pid);
        if (Double.isNaN(seconds)) {
            throw new IllegalStateException("cannot read the CPU time of process " + pid + " from /proc");
        }
        return seconds;
    }

    private static double us(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e3;
    }

    private static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        int n = s.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static void write(Path out, Options o, String redisVersion, List<String> paths, List<Phase> phases,
                              int rate, int connections, int clients, Duration length, int rounds) throws IOException {
        StringBuilder md = new StringBuilder("# The allowed path's CPU in the application\n\n");
        md.append(String.format(Locale.ROOT, "Run on %s (%s). One application JVM (embedded Tomcat 11), open-loop"
                        + " load at %d requests/s over %d keep-alive connections, one path per phase, %d rounds of"
                        + " %.0f s phases interleaved; %d rotating client ids on the allowed path. CPU per request:"
                        + " the process's CPU time over the phase / answers. Latency from sending to the whole answer.%n%n",
                LocalDate.now(), o, rate, connections, rounds, length.toMillis() / 1000.0, clients));
        md.append(Machine.markdown(Machine.describe(redisVersion))).append('\n');
        md.append("Load average at the end: ").append(loadAverage()).append("\n\n");

        Map<String, List<Phase>> by = new LinkedHashMap<>();
        for (String p : paths) {
            by.put(p, new ArrayList<>());
        }
        for (Phase ph : phases) {
            by.get(ph.path).add(ph);
        }
        Table t = new Table("path", "app CPU µs/request, median of rounds (min-max)", "of which JIT compiler threads",
                "Redis CPU µs/request",
                "P50 µs", "P99 µs", "answered", "refused", "errors", "not sent");
        for (var e : by.entrySet()) {
            List<Double> cpu = new ArrayList<>();
            List<Double> rcpu = new ArrayList<>();
            List<Double> jit = new ArrayList<>();
            Histogram lat = null;
            long answered = 0;
            long refused = 0;
            long errors = 0;
            long notSent = 0;
            for (Phase ph : e.getValue()) {
                cpu.add(ph.appMicrosPerRequest());
                rcpu.add(ph.redisMicrosPerRequest());
                jit.add(ph.jitMicrosPerRequest());
                if (lat == null) {
                    lat = ph.latency.copy();
                } else {
                    lat.add(ph.latency);
                }
                answered += ph.answered;
                refused += ph.refused;
                errors += ph.errors + ph.other;
                notSent += ph.notSent;
            }
            t.row(e.getKey(), Table.num(median(cpu)) + " (" + Table.num(cpu.stream().min(Double::compare).orElse(Double.NaN))
                            + "-" + Table.num(cpu.stream().max(Double::compare).orElse(Double.NaN)) + ")",
                    Table.num(median(jit)), Table.num(median(rcpu)), Table.num(us(lat, 50)), Table.num(us(lat, 99)), answered, refused, errors, notSent);
        }
        md.append(t.markdown()).append('\n');
        Files.writeString(out.resolve("appcpu.csv"), t.csv(), StandardCharsets.UTF_8);

        if (by.containsKey("bare") && by.containsKey("ping") && by.containsKey("allowed")) {
            Table g = new Table("round", "bare µs", "PING µs", "allowed µs", "refused µs",
                    "(allowed - bare) / (PING - bare)", "allowed / PING", "allowed P50 / PING P50");
            List<Double> goal = new ArrayList<>();
            List<Double> whole = new ArrayList<>();
            List<Double> p50 = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                double bare = by.get("bare").get(r).appMicrosPerRequest();
                double ping = by.get("ping").get(r).appMicrosPerRequest();
                double allowed = by.get("allowed").get(r).appMicrosPerRequest();
                double refused = by.containsKey("refused") ? by.get("refused").get(r).appMicrosPerRequest() : Double.NaN;
                double ratio = (allowed - bare) / (ping - bare);
                double w = allowed / ping;
                double l = us(by.get("allowed").get(r).latency, 50) / us(by.get("ping").get(r).latency, 50);
                goal.add(ratio);
                whole.add(w);
                p50.add(l);
                g.row(r + 1, Table.num(bare), Table.num(ping), Table.num(allowed), Table.num(refused),
                        Table.ratio(ratio), Table.ratio(w), Table.ratio(l));
            }
            g.row("median", "", "", "", "", Table.ratio(median(goal)), Table.ratio(median(whole)), Table.ratio(median(p50)));
            md.append("Ratios within each round (goal of issue 15: (allowed - bare) / (PING - bare) <= 1.3x):\n\n")
                    .append(g.markdown()).append('\n');
            System.out.printf(Locale.ROOT, "[bench] (allowed - bare) / (PING - bare), median of rounds: %.2fx;"
                    + " allowed / PING: %.2fx%n", median(goal), median(whole));
        }
        Files.writeString(out.resolve("appcpu.md"), md.toString(), StandardCharsets.UTF_8);
        System.out.println(md);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The application JVM, stopped when closed (and by a shutdown hook if the harness is interrupted). */
    private static final class App implements AutoCloseable {
        final Process process;
        final int port;
        final long pid;

        private App(Process process, int port) {
            this.process = process;
            this.port = port;
            this.pid = process.pid();
        }

        static App start(Path dir, int redisPort, boolean jfr, boolean perfMap) throws IOException {
            int port = RedisServer.freePort();
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m"));
            if (jfr) {
                cmd.add("-XX:StartFlightRecording=filename=" + dir.resolve("app.jfr") + ",settings=profile,dumponexit=true");
            }
            if (perfMap) {
                // the JIT's symbols for Linux perf, written to perf-<pid>.map in the system temporary directory when the JVM exits
                cmd.addAll(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit", "-XX:+PreserveFramePointer"));
            }
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), AppCpuServer.class.getName(),
                    Integer.toString(port), dir.resolve("tomcat").toString(), Integer.toString(redisPort)));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
            App app = new App(p, port);
            Runtime.getRuntime().addShutdownHook(new Thread(app::close));
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            Path log = dir.resolve("app.log");
            StringBuilder seen = new StringBuilder();
            String line;
            while ((line = in.readLine()) != null) {
                seen.append(line).append('\n');
                if (line.startsWith("READY")) {
                    Thread pump = new Thread(() -> pump(in, log, seen), "app-log");
                    pump.setDaemon(true);
                    pump.start();
                    System.out.println("[bench] application on 127.0.0.1:" + port + ", pid " + app.pid);
                    return app;
                }
            }
            Files.writeString(log, seen.toString(), StandardCharsets.UTF_8);
            app.close();
            throw new IllegalStateException("the application did not start; see " + log);
        }

        private static void pump(BufferedReader in, Path log, StringBuilder seen) {
            try (var w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
                w.write(seen.toString());
                String line;
                while ((line = in.readLine()) != null) {
                    w.write(line);
                    w.newLine();
                    w.flush();
                }
            } catch (IOException e) {
                // the log is a convenience
            }
        }

        @Override
        public void close() {
            Processes.stop(process);
        }
    }
}
