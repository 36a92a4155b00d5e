package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Options;
import dev.tollgate.bench.RedisServer;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Json;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The article's scenario, end to end: an application on an embedded Tomcat, a real Redis, 50
 * well-behaved clients and one runaway client at about 2,000 requests per second, over loopback,
 * each phase bounded in time. Phases:
 *
 * <ol>
 *   <li>no runaway, no limiter (the baseline);</li>
 *   <li>runaway, no limiter;</li>
 *   <li>runaway, Tollgate {@code 10/s burst 20} per client on Redis;</li>
 *   <li>no runaway, Tollgate (what the limiter itself costs the well-behaved);</li>
 *   <li>runaway, NGINX {@code limit_req rate=10r/s burst=20 nodelay} in front (when nginx is on the PATH);</li>
 *   <li>runaway, Tollgate with a Redis pool as large as the runaway's connection count (is the
 *       pool the limit?).</li>
 * </ol>
 *
 * Writes {@code scenario.md}, {@code scenario.csv}, {@code scenario.json} and
 * {@code latency-well-behaved.png}.
 */
public final class ScenarioRun {

    record Phase(String name, boolean runaway, String limiter, LoadGenerator.Group polite, LoadGenerator.Group wild,
                 double seconds, double appCpu, double redisCpu, double edgeCpu, double generatorCpu) {
    }

    private ScenarioRun() {
    }

    public static void run(Path out, Options o) throws Exception {
        boolean quick = o.quick();
        Duration length = o.duration("phase", quick ? Duration.ofSeconds(6) : Duration.ofSeconds(20));
        Duration warmup = o.duration("warmup", quick ? Duration.ofSeconds(3) : Duration.ofSeconds(6));
        int rate = o.integer("rate", 2000);
        int clients = o.integer("clients", 50);
        double clientRate = o.number("client-rate", 5);
        int maxInFlight = o.integer("connections", 128);
        int slots = o.integer("slots", 8);
        long holdMicros = o.duration("hold", Duration.ofMillis(5)).toNanos() / 1000;
        long cpuMicros = o.duration("cpu", Duration.ofNanos(100_000)).toNanos() / 1000;

        RedisServer.deleteTree(out);
        Files.createDirectories(out);
        if (o.flag("app-jfr")) {
            System.setProperty("tollgate.bench.app-jfr", "true"); // a flight recording of each application JVM
        }
        System.out.println("[bench] scenario, results in " + out);
        System.out.printf(Locale.ROOT, "[bench] %d well-behaved clients at %.1f req/s each, a runaway at %d req/s"
                        + " (over at most %d connections); the app: %d slots held %d µs, %d µs CPU per request; phases of %s%n",
                clients, clientRate, rate, maxInFlight, slots, holdMicros, cpuMicros, length);
        List<Phase> phases = new ArrayList<>();
        String nginxVersion = null;
        try (RedisServer redis = RedisServer.start(out.resolve("redis"))) {
            System.out.println("[bench] " + redis.version() + " on 127.0.0.1:" + redis.port());
            ProcessHandle redisHandle = ProcessHandle.of(redis.pid()).orElseThrow();
            String[] app = {Integer.toString(slots), Long.toString(holdMicros), Long.toString(cpuMicros)};

            try (App plain = App.start(out.resolve("app-plain"), false, redis.uri(), app)) {
                try (LoadGenerator gen = new LoadGenerator("127.0.0.1", plain.port, "/api/work")) {
                    warm(gen, warmup, clients, clientRate);
                    phases.add(phase(gen, "A. no runaway, no limiter", false, "none", length, clients, clientRate, 0,
                            maxInFlight, plain.handle(), redisHandle, null));
                    phases.add(phase(gen, "B. runaway, no limiter", true, "none", length, clients, clientRate, rate,
                            maxInFlight, plain.handle(), redisHandle, null));
                }
                Path nginx = Nginx.binary();
                if (nginx != null && !o.flag("no-nginx")) {
                    nginxVersion = Machine.nginxVersion();
                    try (Nginx edge = Nginx.start(nginx, out.resolve("nginx"), plain.port)) {
                        try (LoadGenerator gen = new LoadGenerator("127.0.0.1", edge.port, "/api/work")) {
                            warm(gen, warmup, clients, clientRate);
                            phases.add(phase(gen, "E. runaway, NGINX limit_req", true, "nginx", length, clients,
                                    clientRate, rate, maxInFlight, plain.handle(), redisHandle, edge.handle()));
                        }
                    }
                } else {
                    System.out.println("[bench] no nginx on the PATH (Debian: apt-get install nginx-light): no edge phase");
                }
            }
            try (App limited = App.start(out.resolve("app-tollgate"), true, redis.uri(), app)) {
                try (LoadGenerator gen = new LoadGenerator("127.0.0.1", limited.port, "/api/work")) {
                    warm(gen, warmup, clients, clientRate);
                    phases.add(phase(gen, "C. runaway, Tollgate", true, "tollgate", length, clients, clientRate, rate,
                            maxInFlight, limited.handle(), redisHandle, null));
                    phases.add(phase(gen, "D. no runaway, Tollgate", false, "tollgate", length, clients, clientRate, 0,
                            maxInFlight, limited.handle(), redisHandle, null));
                }
            }
            if (!o.flag("no-pool-phase")) {
                String[] bigPool = {app[0], app[1], app[2], Integer.toString(maxInFlight)};
                try (App limited = App.start(out.resolve("app-tollgate-pool"), true, redis.uri(), bigPool)) {
                    try (LoadGenerator gen = new LoadGenerator("127.0.0.1", limited.port, "/api/work")) {
                        warm(gen, warmup, clients, clientRate);
                        phases.add(phase(gen, "F. runaway, Tollgate, pool-size " + maxInFlight, true, "tollgate",
                                length, clients, clientRate, rate, maxInFlight, limited.handle(), redisHandle, null));
                    }
                }
            }
            phases.sort((a, b) -> a.name.compareTo(b.name));
            write(out, o, redis.version(), nginxVersion, phases, clients, clientRate, rate, maxInFlight, slots,
                    holdMicros, cpuMicros, length);
        }
    }

    /** Both paths of the application warmed up (JIT) before anything is measured. */
    private static void warm(LoadGenerator gen, Duration warmup, int clients, double clientRate)
            throws InterruptedException {
        System.out.println("[bench] warm-up " + warmup.toSeconds() + " s");
        gen.run(warmup, clients, clientRate, 200, 64);
        Thread.sleep(2_500); // the buckets of the warm-up refill
    }

    private static Phase phase(LoadGenerator gen, String name, boolean runaway, String limiter, Duration length,
                               int clients, double clientRate, int rate, int maxInFlight, ProcessHandle app,
                               ProcessHandle redis, ProcessHandle edge) throws InterruptedException {
        System.out.println("[bench] phase " + name + " (" + length.toSeconds() + " s)");
        long pid = ProcessHandle.current().pid();
        double app0 = Processes.cpuSeconds(app.pid());
        double redis0 = Processes.cpuSeconds(redis.pid());
        double edge0 = edge == null ? 0 : Processes.treeCpuSeconds(edge);
        double gen0 = Processes.cpuSeconds(pid);
        long t0 = System.nanoTime();
        LoadGenerator.Group[] g = gen.run(length, clients, clientRate, runaway ? rate : 0, maxInFlight);
        double seconds = (System.nanoTime() - t0) / 1e9;
        Phase p = new Phase(name, runaway, limiter, g[0], g[1], length.toMillis() / 1000.0,
                (Processes.cpuSeconds(app.pid()) - app0) / seconds,
                (Processes.cpuSeconds(redis.pid()) - redis0) / seconds,
                edge == null ? Double.NaN : (Processes.treeCpuSeconds(edge) - edge0) / seconds,
                (Processes.cpuSeconds(pid) - gen0) / seconds);
        System.out.printf(Locale.ROOT, "[bench]   well-behaved P95 %.1f ms; runaway sent %d, 429 share %s%n",
                ms(p.polite.allowed, 95), p.wild.sent.get(), share(p.wild));
        Thread.sleep(2_500);
        return p;
    }

    // ---- report ----

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e6;
    }

    private static String share(LoadGenerator.Group g) {
        long answered = g.answered();
        return answered == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * g.denied.getTotalCount() / answered);
    }

    private static String lat(Histogram h, double... ps) {
        if (h.getTotalCount() == 0) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        for (double p : ps) {
            sb.append(sb.length() == 0 ? "" : " / ").append(Table.num(ms(h, p)));
        }
        return sb.toString();
    }

    private static void write(Path out, Options o, String redisVersion, String nginxVersion, List<Phase> phases,
                              int clients, double clientRate, int rate, int maxInFlight, int slots, long holdMicros,
                              long cpuMicros, Duration length) throws IOException {
        StringBuilder md = new StringBuilder("# Scenario: one runaway client among well-behaved ones\n\n");
        md.append(String.format(Locale.ROOT, "Run on %s (%s). %d well-behaved clients at %.1f requests/s each;"
                        + " one runaway client wanting %d requests/s, open loop, over at most %d keep-alive connections; each phase %.0f s,"
                        + " loopback only. Clients are told apart by an `X-Client-Id` header. The application:"
                        + " %d µs of CPU work, then one of %d \"database\" slots held %d µs (at most %.0f requests/s)."
                        + " Latencies in ms, from sending to the full response.%n%n",
                LocalDate.now(), o, clients, clientRate, rate, maxInFlight, length.toMillis() / 1000.0, cpuMicros,
                slots, holdMicros, slots * 1e6 / holdMicros));
        Map<String, String> machine = Machine.describe(redisVersion);
        if (nginxVersion != null) {
            machine.put("nginx", nginxVersion.replace("nginx version: ", ""));
        }
        md.append(Machine.markdown(machine)).append('\n');

        Table t = new Table("phase", "well-behaved req/s", "well-behaved P50 / P95 / P99, allowed",
                "well-behaved 429s", "runaway sent req/s (not sent)", "runaway 429 share",
                "runaway 429 P50 / P99", "runaway 200 P50 / P99", "app CPU, cores", "Redis CPU", "NGINX CPU",
                "generator CPU");
        for (Phase p : phases) {
            t.row(p.name, Table.num(p.polite.answered() / p.seconds), lat(p.polite.allowed, 50, 95, 99),
                    p.polite.denied.getTotalCount(),
                    p.runaway ? Table.num(p.wild.sent.get() / p.seconds) + " (" + p.wild.notSent.get() + ")" : "-",
                    p.runaway ? share(p.wild) : "-", p.runaway ? lat(p.wild.denied, 50, 99) : "-",
                    p.runaway ? lat(p.wild.allowed, 50, 99) : "-", Table.num(p.appCpu), Table.num(p.redisCpu),
                    Double.isNaN(p.edgeCpu) ? "-" : Table.num(p.edgeCpu), Table.num(p.generatorCpu));
        }
        md.append("## Results\n\n").append(t.markdown()).append('\n');
        long errors = 0;
        long late = 0;
        for (Phase p : phases) {
            errors += p.polite.errors.get() + p.wild.errors.get() + p.polite.other.get() + p.wild.other.get();
            late += p.polite.late.get();
        }
        md.append(String.format(Locale.ROOT, "Transport errors or statuses other than 200/429, all phases: %d."
                + " Well-behaved requests sent over 10 ms after their time (generator lag): %d.%n%n", errors, late));

        StringBuilder fallbacks = new StringBuilder();
        for (String app : List.of("app-tollgate", "app-tollgate-pool")) {
            Path log = out.resolve(app).resolve("app.log");
            if (Files.exists(log)) {
                String text = Files.readString(log, StandardCharsets.UTF_8);
                fallbacks.append(fallbacks.length() == 0 ? "" : "; ").append(app.equals("app-tollgate")
                        ? "phases C and D (default pool of 16)" : "phase F").append(": ")
                        .append(count(text, "TOLLGATE-021")).append(" switches to the local fallback (TOLLGATE-021), ")
                        .append(count(text, "Could not get a resource from the pool")).append(" of them a pool borrow timeout");
            }
        }
        if (fallbacks.length() > 0) {
            md.append("Tollgate's log, warm-ups included: ").append(fallbacks).append(".\n\n");
        }

        Phase a = find(phases, "A.");
        Phase c = find(phases, "C.");
        Phase d = find(phases, "D.");
        Phase b = find(phases, "B.");
        Phase e = find(phases, "E.");
        Phase f = find(phases, "F.");
        Table goals = new Table("measure", "value");
        if (a != null && c != null) {
            double r = ms(c.polite.allowed, 95) / ms(a.polite.allowed, 95);
            goals.row("goal: well-behaved P95 with the runaway and Tollgate (C) vs no runaway at all (A), target <= 1.5x",
                    Table.ratio(r) + (r <= 1.5 ? " **met**" : " **not met**"));
        }
        if (c != null && d != null) {
            goals.row("well-behaved P95, runaway and Tollgate (C) vs Tollgate without runaway (D)",
                    Table.ratio(ms(c.polite.allowed, 95) / ms(d.polite.allowed, 95)));
        }
        if (a != null && d != null) {
            goals.row("well-behaved P50, Tollgate on (D) vs off (A), no runaway: the limiter's own cost",
                    Table.ratio(ms(d.polite.allowed, 50) / ms(a.polite.allowed, 50)));
        }
        if (a != null && b != null) {
            goals.row("well-behaved P95, runaway without limiter (B) vs baseline (A)",
                    Table.ratio(ms(b.polite.allowed, 95) / ms(a.polite.allowed, 95)));
        }
        if (c != null && e != null) {
            goals.row("runaway 429 P50, Tollgate (C) vs NGINX (E)",
                    Table.ratio(ms(c.wild.denied, 50) / ms(e.wild.denied, 50)));
            goals.row("well-behaved P95, Tollgate (C) vs NGINX (E)",
                    Table.ratio(ms(c.polite.allowed, 95) / ms(e.polite.allowed, 95)));
        }
        if (a != null && f != null) {
            double r = ms(f.polite.allowed, 95) / ms(a.polite.allowed, 95);
            goals.row("the same goal with Tollgate's Redis pool as large as the runaway's connections (F vs A)",
                    Table.ratio(r) + (r <= 1.5 ? " met" : " not met"));
        }
        md.append("## Ratios\n\n").append(goals.markdown()).append('\n');
        Files.writeString(out.resolve("scenario.md"), md.toString(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("scenario.csv"), t.csv(), StandardCharsets.UTF_8);

        List<Object> json = new ArrayList<>();
        Map<String, List<double[]>> curves = new LinkedHashMap<>();
        for (Phase p : phases) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("phase", p.name);
            j.put("seconds", p.seconds);
            j.put("wellBehaved", group(p.polite, p.seconds));
            j.put("runaway", group(p.wild, p.seconds));
            j.put("appCpuCores", p.appCpu);
            j.put("redisCpuCores", p.redisCpu);
            j.put("nginxCpuCores", p.edgeCpu);
            j.put("generatorCpuCores", p.generatorCpu);
            json.add(j);
            curves.put(p.name + ", well-behaved", curve(p.polite.allowed));
        }
        for (Phase p : phases) {
            if (p.runaway && p.wild.denied.getTotalCount() > 0) {
                curves.put(p.name + ", runaway 429", curve(p.wild.denied));
            }
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("machine", machine);
        all.put("phases", json);
        Files.writeString(out.resolve("scenario.json"), Json.write(all), StandardCharsets.UTF_8);
        Charts.percentiles(out.resolve("latency-well-behaved.png"),
                "Latency by percentile: well-behaved clients (allowed) and the runaway's 429s", "ms (log)", curves, true);
        System.out.println();
        System.out.println(md);
        System.out.println("[bench] written: " + out.resolve("scenario.md") + ", scenario.csv, scenario.json,"
                + " latency-well-behaved.png");
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static Phase find(List<Phase> phases, String prefix) {
        for (Phase p : phases) {
            if (p.name.startsWith(prefix)) {
                return p;
            }
        }
        return null;
    }

    private static Map<String, Object> group(LoadGenerator.Group g, double seconds) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sent", g.sent.get());
        m.put("notSent", g.notSent.get());
        m.put("answeredPerSecond", g.answered() / seconds);
        m.put("allowed", g.allowed.getTotalCount());
        m.put("denied", g.denied.getTotalCount());
        m.put("other", g.other.get());
        m.put("errors", g.errors.get());
        for (double p : new double[] {50, 95, 99, 99.9}) {
            m.put("allowedP" + p + "Ms", ms(g.allowed, p));
            m.put("deniedP" + p + "Ms", ms(g.denied, p));
        }
        return m;
    }

    private static List<double[]> curve(Histogram h) {
        List<double[]> pts = new ArrayList<>();
        if (h.getTotalCount() == 0) {
            return pts;
        }
        for (double p : new double[] {0, 10, 25, 50, 75, 80, 90, 95, 97, 98, 99, 99.5, 99.7, 99.8, 99.9}) {
            pts.add(new double[] {p, h.getValueAtPercentile(p) / 1e6});
        }
        return pts;
    }

    /** The application server in its own JVM. */
    private static final class App implements AutoCloseable {
        final Process process;
        final int port;

        private App(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static App start(Path dir, boolean tollgate, String redisUri, String[] work) throws IOException {
            Files.createDirectories(dir);
            int port = RedisServer.freePort();
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m"));
            if (Boolean.getBoolean("tollgate.bench.app-jfr")) {
                cmd.add("-XX:StartFlightRecording=filename=" + dir.resolve("app.jfr") + ",settings=profile,dumponexit=true");
            }
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), AppServer.class.getName(),
                    Integer.toString(port), dir.resolve("tomcat").toString(), tollgate ? "tollgate" : "plain", redisUri));
            cmd.addAll(List.of(work));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
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
                    System.out.println("[bench] application " + (tollgate ? "with Tollgate" : "without limiter")
                            + " on 127.0.0.1:" + port);
                    return app;
                }
            }
            Files.writeString(log, seen.toString(), StandardCharsets.UTF_8);
            app.close();
            throw new IllegalStateException("the scenario's application did not start; see " + log);
        }

        private static void pump(BufferedReader in, Path log, StringBuilder seen) {
            try (var w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
                w.write(seen.toString());
                String line;
                while ((line = in.readLine()) != null) {
                    w.write(line);
                    w.newLine();
                }
            } catch (IOException e) {
                // the log is a convenience
            }
        }

        ProcessHandle handle() {
            return process.toHandle();
        }

        @Override
        public void close() {
            if (!process.isAlive()) {
                return;
            }
            try {
                process.getOutputStream().close(); // AppServer stops when its input closes
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (IOException e) {
                process.destroyForcibly();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
