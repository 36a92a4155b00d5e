package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Options;
import dev.tollgate.bench.Processes;
import dev.tollgate.bench.RedisServer;
import dev.tollgate.bench.load.LoadGenerator;
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
import java.util.Comparator;
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
 *   <li>A: no runaway, no limiter (the baseline);</li>
 *   <li>B: runaway, no limiter;</li>
 *   <li>C: runaway, Tollgate {@code 10/s burst 20} per client on Redis;</li>
 *   <li>D: no runaway, Tollgate (what the limiter itself costs the well-behaved);</li>
 *   <li>E: runaway, NGINX {@code limit_req rate=10r/s burst=20 nodelay} in front (when nginx is on the PATH);</li>
 *   <li>F: runaway, Tollgate with a Redis pool as large as the runaway's connection count (is the
 *       pool the limit?);</li>
 *   <li>G: runaway, a filter that answers the runaway a constant 429 of Tollgate's shape
 *       ({@link StaticRefusalFilter}): the floor of a refusal inside Tomcat.</li>
 * </ol>
 *
 * Every application runs in a JVM of its own and stays up for the whole run; C, E and G are
 * repeated {@code runs} times (3 by default), in the order E C G, then G C E, and so on, so that
 * each run gives a ratio P95(C)/P95(E) of its own and the goal is the median of those. With
 * {@code app-threads=platform,virtual} (or {@code vthreads}) every phase is run on both kinds of
 * request thread, each with applications of its own, interleaved in the same run.
 *
 * Writes {@code scenario.md}, {@code scenario.csv}, {@code scenario.json} and
 * {@code latency-well-behaved.png}.
 */
public final class ScenarioRun {

    /** The phases run once (in the first run) and the ones repeated in every run, in this order. */
    private static final String ONCE = "ABDF";
    private static final String REPEATED = "ECG";
    private static final Map<Character, String> NAMES = Map.of(
            'A', "A. no runaway, no limiter",
            'B', "B. runaway, no limiter",
            'C', "C. runaway, Tollgate",
            'D', "D. no runaway, Tollgate",
            'E', "E. runaway, NGINX limit_req",
            'F', "F. runaway, Tollgate, pool-size ",
            'G', "G. runaway, static 429 (Tomcat's floor)");

    record Phase(char letter, String threads, int run, String name, boolean runaway, String limiter,
                 LoadGenerator.Group polite, LoadGenerator.Group wild, double seconds, double appCpu, double redisCpu,
                 double edgeCpu, double generatorCpu, double loadAverage, double redisCalls) {

        String label() {
            return name + (threads.equals("platform") ? "" : " [" + threads + " threads]") + (run > 0 ? " (run " + run + ")" : "");
        }
    }

    /** How the scenario's applications run: which JDK, which request threads. */
    record AppJvm(Path java, int feature, String threads, boolean jfr) {
        boolean virtual() {
            return threads.equals("virtual");
        }

        @Override
        public String toString() {
            return threads + " on Java " + feature;
        }
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
        int runs = o.integer("runs", quick ? 1 : 3);
        String selected = o.get("phases", ONCE + REPEATED).toUpperCase(Locale.ROOT);
        if (o.flag("no-pool-phase")) {
            selected = selected.replace("F", "");
        }
        Path nginx = o.flag("no-nginx") ? null : Nginx.binary();
        if (nginx == null) {
            selected = selected.replace("E", "");
            System.out.println("[bench] no nginx " + (o.flag("no-nginx") ? "(no-nginx)" : "on the PATH (Debian: apt-get install nginx-light)")
                    + ": no edge phase");
        }
        for (char ch : selected.toCharArray()) {
            if (!NAMES.containsKey(ch)) {
                throw new IllegalStateException("phases=" + o.get("phases", "") + ": '" + ch + "' is no phase; phases are "
                        + ONCE + REPEATED + " (A to G)");
            }
        }
        if (runs < 1) {
            throw new IllegalStateException("runs=" + runs + ": give 1 or more");
        }
        List<AppJvm> kinds = appJvms(o);

        RedisServer.deleteTree(out);
        Files.createDirectories(out);
        System.out.println("[bench] scenario, results in " + out);
        System.out.printf(Locale.ROOT, "[bench] %d well-behaved clients at %.1f req/s each, a runaway at %d req/s"
                        + " (over at most %d connections); the app: %d slots held %d µs, %d µs CPU per request; phases"
                        + " %s of %s, %s repeated %d times; request threads: %s%n",
                clients, clientRate, rate, maxInFlight, slots, holdMicros, cpuMicros, selected, length,
                REPEATED.replaceAll("[^" + selected + "]", ""), runs, kinds);
        List<Phase> phases = new ArrayList<>();
        String nginxVersion = nginx == null ? null : Machine.nginxVersion();
        Map<String, String> jfrSummaries = new LinkedHashMap<>();
        try (RedisServer redis = RedisServer.start(out.resolve("redis"))) {
            System.out.println("[bench] " + redis.version() + " on 127.0.0.1:" + redis.port());
            ProcessHandle redisHandle = ProcessHandle.of(redis.pid()).orElseThrow();
            String[] work = {Integer.toString(slots), Long.toString(holdMicros), Long.toString(cpuMicros)};
            Settings s = new Settings(length, warmup, clients, clientRate, rate, maxInFlight, redisHandle,
                    () -> scriptCalls(redis.cli("INFO", "commandstats")));
            if (o.flag("refusal-cost")) {
                refusalCost(out, o, kinds, redis.uri(), work, s);
                return;
            }
            List<Apps> all = new ArrayList<>();
            try {
                for (AppJvm kind : kinds) {
                    all.add(Apps.start(out, kind, selected, nginx, redis.uri(), work, maxInFlight, s));
                }
                for (Apps apps : all) {
                    for (char letter : ONCE.toCharArray()) {
                        if (selected.indexOf(letter) >= 0) {
                            phases.add(apps.phase(letter, 0, s));
                        }
                    }
                }
                List<Object[]> order = new ArrayList<>();
                for (Apps apps : all) {
                    for (char letter : REPEATED.toCharArray()) {
                        if (selected.indexOf(letter) >= 0) {
                            order.add(new Object[] {apps, letter});
                        }
                    }
                }
                for (int r = 1; r <= runs; r++) {
                    System.out.printf(Locale.ROOT, "[bench] run %d of %d, load average %.2f%n", r, runs, loadAverage());
                    for (int i = 0; i < order.size(); i++) {
                        Object[] step = order.get(r % 2 == 1 ? i : order.size() - 1 - i); // E C G, then G C E: drift cancels
                        phases.add(((Apps) step[0]).phase((Character) step[1], runs > 1 ? r : 0, s));
                    }
                }
            } finally {
                for (Apps apps : all) {
                    apps.close();
                }
            }
            for (Apps apps : all) {
                jfrSummaries.putAll(apps.jfrSummaries());
            }
            phases.sort(Comparator.comparing((Phase p) -> p.letter).thenComparing(p -> p.threads.equals("platform") ? 0 : 1)
                    .thenComparingInt(p -> p.run));
            write(out, o, redis.version(), nginxVersion, kinds, phases, runs, clients, clientRate, rate, maxInFlight,
                    slots, holdMicros, cpuMicros, length, jfrSummaries);
        }
    }

    /**
     * What one refusal costs the application, Tomcat included, with nobody else calling: the
     * runaway alone at {@code cost-rate} (1,000/s) over {@code cost-connections} (4) connections,
     * against Tollgate (C's application) and against the constant 429 (G's), in slices of
     * {@code phase} alternating C G G C ..., {@code runs} pairs. The figure is the application's
     * CPU time over the slice divided by the 429s it answered; the difference is Tollgate's share.
     */
    private static void refusalCost(Path out, Options o, List<AppJvm> kinds, String redisUri, String[] work, Settings s)
            throws Exception {
        int rate = o.integer("cost-rate", 1000);
        int connections = o.integer("cost-connections", 4);
        int pairs = o.integer("runs", 5);
        StringBuilder md = new StringBuilder("# The application's CPU per refusal\n\n");
        md.append(String.format(Locale.ROOT, "Run on %s (%s): the runaway alone at %d requests/s over %d connections,"
                + " slices of %.0f s, %d pairs alternating C G G C ...; app CPU µs per 429.%n%n", LocalDate.now(), shown(o), rate,
                connections, s.length().toMillis() / 1000.0, pairs));
        for (AppJvm kind : kinds) {
            try (Apps apps = Apps.start(out, kind, "CG", null, redisUri, work, s.maxInFlight(), s)) {
                Table t = new Table("pair", "load avg", "Tollgate (C), µs per 429", "static 429 (G), µs per 429", "C - G", "C / G");
                List<Double> diffs = new ArrayList<>();
                List<Double> ratios = new ArrayList<>();
                for (int r = 1; r <= pairs; r++) {
                    double load = loadAverage();
                    double c = 0;
                    double g = 0;
                    for (int i = 0; i < 2; i++) {
                        boolean tollgateFirst = r % 2 == 1;
                        boolean tollgate = (i == 0) == tollgateFirst;
                        App app = tollgate ? apps.tollgate : apps.floor;
                        double us = perRefusal(app, rate, connections, s.length());
                        if (tollgate) {
                            c = us;
                        } else {
                            g = us;
                        }
                    }
                    diffs.add(c - g);
                    ratios.add(c / g);
                    t.row(r, Table.num(load), Table.num(c), Table.num(g), Table.num(c - g), Table.ratio(c / g));
                    System.out.printf(Locale.ROOT, "[bench] %s pair %d: C %.1f µs, G %.1f µs per 429 (load %.2f)%n", kind, r, c, g, load);
                }
                t.row("**median**", "", "", "", "**" + Table.num(median(diffs)) + "**", Table.ratio(median(ratios)));
                md.append("## ").append(kind).append("\n\n").append(t.markdown()).append('\n');
            }
        }
        Files.writeString(out.resolve("refusal-cost.md"), md.toString(), StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(md);
    }

    private static double perRefusal(App app, int rate, int connections, Duration length) throws InterruptedException {
        double cpu0 = Processes.cpuSeconds(app.process.pid());
        LoadGenerator.Group[] g;
        try (LoadGenerator gen = new LoadGenerator("127.0.0.1", app.port, connections)) {
            g = gen.phase("/api/work", length, 0, 1, rate);
        }
        double cpu = Processes.cpuSeconds(app.process.pid()) - cpu0;
        Thread.sleep(2_500);
        return cpu / g[1].denied.getTotalCount() * 1e6;
    }

    /** What every phase shares. */
    record Settings(Duration length, Duration warmup, int clients, double clientRate, int rate, int maxInFlight,
                    ProcessHandle redis, java.util.function.LongSupplier redisCalls) {
    }

    /** Script calls Redis has run so far ({@code EVALSHA} and {@code EVAL}), from {@code INFO commandstats}. */
    static long scriptCalls(String info) {
        long n = 0;
        for (String line : info.split("\\R")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                int at = line.indexOf("calls=");
                int end = line.indexOf(',', at);
                n += Long.parseLong(line.substring(at + 6, end < 0 ? line.length() : end));
            }
        }
        return n;
    }

    /** The JDK and request threads of the applications: {@code app-java}, {@code app-threads}, {@code vthreads}. */
    private static List<AppJvm> appJvms(Options o) throws IOException, InterruptedException {
        String home = o.get("app-java", System.getenv().getOrDefault("TOLLGATE_BENCH_APP_JAVA", ""));
        Path java = home.isBlank() ? Path.of(System.getProperty("java.home"), "bin", "java")
                : Path.of(home, "bin", "java");
        if (!Files.isExecutable(java)) {
            throw new IllegalStateException("app-java=" + home + ": no executable bin/java there; give a JDK home"
                    + " (or set TOLLGATE_BENCH_APP_JAVA)");
        }
        int feature = home.isBlank() ? Runtime.version().feature() : javaFeature(java);
        String threads = o.get("app-threads", o.flag("vthreads") ? "platform,virtual" : "platform");
        List<AppJvm> kinds = new ArrayList<>();
        for (String t : threads.split(",")) {
            String kind = t.trim().toLowerCase(Locale.ROOT);
            if (!kind.equals("platform") && !kind.equals("virtual")) {
                throw new IllegalStateException("app-threads=" + threads + ": '" + t + "' is neither platform nor virtual");
            }
            if (kind.equals("virtual") && feature < 21) {
                throw new IllegalStateException("app-threads=" + threads + ": virtual threads need a JDK 21 or later for"
                        + " the application; it would run on Java " + feature + " (give app-java=<JDK home> or set"
                        + " TOLLGATE_BENCH_APP_JAVA)");
            }
            kinds.add(new AppJvm(java, feature, kind, o.flag("app-jfr")));
        }
        return kinds;
    }

    /** The feature release of a JDK's {@code java}, from {@code java -XshowSettings:properties -version}. */
    private static int javaFeature(Path java) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(java.toString(), "-XshowSettings:properties", "-version").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        for (String line : text.split("\\R")) {
            String t = line.trim();
            if (t.startsWith("java.specification.version")) {
                String v = t.substring(t.indexOf('=') + 1).trim();
                return Integer.parseInt(v.startsWith("1.") ? v.substring(2) : v);
            }
        }
        throw new IllegalStateException(java + " did not say its version");
    }

    /** The options as the report shows them: a JDK's home is this machine's path, not a figure. */
    private static String shown(Options o) {
        String text = o.toString();
        String home = o.get("app-java", "");
        return home.isBlank() ? text : text.replace(home, "<JDK home>");
    }

    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** The applications of one kind of JVM, started once and kept for every run. */
    private static final class Apps implements AutoCloseable {
        final AppJvm kind;
        final Path dir;
        App plain;
        Nginx edge;
        App tollgate;
        App floor;
        App pool;
        int maxInFlight;

        private Apps(AppJvm kind, Path dir) {
            this.kind = kind;
            this.dir = dir;
        }

        static Apps start(Path out, AppJvm kind, String selected, Path nginx, String redisUri, String[] work,
                          int maxInFlight, Settings s) throws Exception {
            String suffix = kind.threads().equals("platform") ? "" : "-" + kind.threads();
            Apps a = new Apps(kind, out);
            a.maxInFlight = maxInFlight;
            try {
                if (selected.matches(".*[ABE].*")) {
                    a.plain = App.start(out.resolve("app-plain" + suffix), "plain", kind, redisUri, work);
                    warm(a.plain.port, s);
                    if (selected.indexOf('E') >= 0) {
                        a.edge = Nginx.start(nginx, out.resolve("nginx" + suffix), a.plain.port);
                        warm(a.edge.port, s);
                    }
                }
                if (selected.matches(".*[CD].*")) {
                    a.tollgate = App.start(out.resolve("app-tollgate" + suffix), "tollgate", kind, redisUri, work);
                    warm(a.tollgate.port, s);
                }
                if (selected.indexOf('G') >= 0) {
                    a.floor = App.start(out.resolve("app-static" + suffix), "static", kind, redisUri, work);
                    warm(a.floor.port, s);
                }
                if (selected.indexOf('F') >= 0) {
                    String[] bigPool = {work[0], work[1], work[2], Integer.toString(maxInFlight)};
                    a.pool = App.start(out.resolve("app-tollgate-pool" + suffix), "tollgate", kind, redisUri, bigPool);
                    warm(a.pool.port, s);
                }
            } catch (Exception | Error e) {
                a.close();
                throw e;
            }
            return a;
        }

        Phase phase(char letter, int run, Settings s) throws InterruptedException {
            String name = NAMES.get(letter) + (letter == 'F' ? Integer.toString(maxInFlight) : "");
            boolean runaway = "BCEFG".indexOf(letter) >= 0;
            return switch (letter) {
                case 'A', 'B' -> ScenarioRun.phase(letter, kind.threads(), run, name, runaway, "none", plain.port,
                        plain.handle(), null, s);
                case 'C', 'D' -> ScenarioRun.phase(letter, kind.threads(), run, name, runaway, "tollgate", tollgate.port,
                        tollgate.handle(), null, s);
                case 'E' -> ScenarioRun.phase(letter, kind.threads(), run, name, true, "nginx", edge.port, plain.handle(),
                        edge.handle(), s);
                case 'F' -> ScenarioRun.phase(letter, kind.threads(), run, name, true, "tollgate", pool.port, pool.handle(),
                        null, s);
                case 'G' -> ScenarioRun.phase(letter, kind.threads(), run, name, true, "static", floor.port,
                        floor.handle(), null, s);
                default -> throw new IllegalArgumentException("phase " + letter);
            };
        }

        /** The flight recordings' pinning and contention, read after the applications stopped. */
        Map<String, String> jfrSummaries() {
            Map<String, String> m = new LinkedHashMap<>();
            for (App app : new App[] {plain, tollgate, floor, pool}) {
                if (app != null && kind.jfr()) {
                    m.put(app.dir.getFileName().toString(), JfrSummary.of(kind.java(), app.dir.resolve("app.jfr")));
                }
            }
            return m;
        }

        @Override
        public void close() {
            for (AutoCloseable c : new AutoCloseable[] {edge, plain, tollgate, floor, pool}) {
                if (c != null) {
                    try {
                        c.close();
                    } catch (Exception e) {
                        // stopping anyway
                    }
                }
            }
        }
    }

    /** Both paths of the application warmed up (JIT) before anything is measured. */
    private static void warm(int port, Settings s) throws InterruptedException {
        System.out.println("[bench] warm-up " + s.warmup().toSeconds() + " s on 127.0.0.1:" + port);
        try (LoadGenerator gen = new LoadGenerator("127.0.0.1", port, 64)) {
            gen.phase("/api/work", s.warmup(), s.clients(), s.clientRate(), 200);
        }
        Thread.sleep(2_500); // the buckets of the warm-up refill
    }

    private static Phase phase(char letter, String threads, int run, String name, boolean runaway, String limiter,
                               int port, ProcessHandle app, ProcessHandle edge, Settings s) throws InterruptedException {
        double load = loadAverage();
        String label = new Phase(letter, threads, run, name, runaway, limiter, null, null, 0, 0, 0, 0, 0, load, 0).label();
        System.out.printf(Locale.ROOT, "[bench] phase %s (%d s), load average %.2f%n", label, s.length().toSeconds(), load);
        long pid = ProcessHandle.current().pid();
        ProcessHandle redis = s.redis();
        double app0 = Processes.cpuSeconds(app.pid());
        double redis0 = Processes.cpuSeconds(redis.pid());
        double edge0 = edge == null ? 0 : Processes.treeCpuSeconds(edge);
        double gen0 = Processes.cpuSeconds(pid);
        long calls0 = s.redisCalls().getAsLong();
        long t0 = System.nanoTime();
        LoadGenerator.Group[] g;
        try (LoadGenerator gen = new LoadGenerator("127.0.0.1", port, s.maxInFlight())) {
            g = gen.phase("/api/work", s.length(), s.clients(), s.clientRate(), runaway ? s.rate() : 0);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Phase p = new Phase(letter, threads, run, name, runaway, limiter, g[0], g[1], s.length().toMillis() / 1000.0,
                (Processes.cpuSeconds(app.pid()) - app0) / seconds,
                (Processes.cpuSeconds(redis.pid()) - redis0) / seconds,
                edge == null ? Double.NaN : (Processes.treeCpuSeconds(edge) - edge0) / seconds,
                (Processes.cpuSeconds(pid) - gen0) / seconds, load, (s.redisCalls().getAsLong() - calls0) / seconds);
        System.out.printf(Locale.ROOT, "[bench]   well-behaved P95 %.2f ms; runaway sent %d, 429 share %s; app CPU %.3f cores%n",
                ms(p.polite.allowed, 95), p.wild.sent.get(), share(p.wild), p.appCpu);
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

    private static void write(Path out, Options o, String redisVersion, String nginxVersion, List<AppJvm> kinds,
                              List<Phase> phases, int runs, int clients, double clientRate, int rate, int maxInFlight,
                              int slots, long holdMicros, long cpuMicros, Duration length, Map<String, String> jfr)
            throws IOException {
        StringBuilder md = new StringBuilder("# Scenario: one runaway client among well-behaved ones\n\n");
        md.append(String.format(Locale.ROOT, "Run on %s (%s). %d well-behaved clients at %.1f requests/s each;"
                        + " one runaway client wanting %d requests/s, open loop, over at most %d keep-alive connections; each phase %.0f s,"
                        + " loopback only. Clients are told apart by an `X-Client-Id` header. The application:"
                        + " %d µs of CPU work, then one of %d \"database\" slots held %d µs (at most %.0f requests/s)."
                        + " Latencies in ms, from sending to the full response. Phases C, E and G ran %d time(s), interleaved"
                        + " (E C G, then G C E, ...); the others once.%n%n",
                LocalDate.now(), shown(o), clients, clientRate, rate, maxInFlight, length.toMillis() / 1000.0, cpuMicros,
                slots, holdMicros, slots * 1e6 / holdMicros, runs));
        Map<String, String> machine = Machine.describe(redisVersion);
        if (nginxVersion != null) {
            machine.put("nginx", nginxVersion.replace("nginx version: ", ""));
        }
        for (AppJvm k : kinds) {
            machine.put("application JVM, " + k.threads() + " request threads", "Java " + k.feature()
                    + (k.virtual() ? ", Tomcat useVirtualThreads" : ", Tomcat's pool of 200 threads"));
        }
        md.append(Machine.markdown(machine)).append('\n');

        Table t = new Table("phase", "load avg", "well-behaved req/s", "well-behaved P50 / P95 / P99, allowed",
                "well-behaved 429s", "runaway sent req/s (not sent)", "runaway 429 share",
                "runaway 429 P50 / P99", "runaway 200 P50 / P99", "app CPU, cores", "Redis CPU", "Redis script calls/s",
                "NGINX CPU", "generator CPU");
        for (Phase p : phases) {
            t.row(p.label(), Table.num(p.loadAverage), Table.num(p.polite.answered() / p.seconds), lat(p.polite.allowed, 50, 95, 99),
                    p.polite.denied.getTotalCount(),
                    p.runaway ? Table.num(p.wild.sent.get() / p.seconds) + " (" + p.wild.notSent.get() + ")" : "-",
                    p.runaway ? share(p.wild) : "-", p.runaway ? lat(p.wild.denied, 50, 99) : "-",
                    p.runaway ? lat(p.wild.allowed, 50, 99) : "-", Table.num(p.appCpu), Table.num(p.redisCpu),
                    Table.num(p.redisCalls), Double.isNaN(p.edgeCpu) ? "-" : Table.num(p.edgeCpu), Table.num(p.generatorCpu));
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
        try (var dirs = Files.list(out)) {
            for (Path dir : (Iterable<Path>) dirs.sorted()::iterator) {
                Path log = dir.resolve("app.log");
                if (dir.getFileName().toString().startsWith("app-tollgate") && Files.exists(log)) {
                    String text = Files.readString(log, StandardCharsets.UTF_8);
                    fallbacks.append(fallbacks.length() == 0 ? "" : "; ").append(dir.getFileName()).append(": ")
                            .append(count(text, "TOLLGATE-021")).append(" switches to the local fallback (TOLLGATE-021), ")
                            .append(count(text, "Could not get a resource from the pool")).append(" of them a pool borrow timeout");
                }
            }
        }
        if (fallbacks.length() > 0) {
            md.append("Tollgate's log, warm-ups included: ").append(fallbacks).append(".\n\n");
        }

        Map<String, Object> goalJson = new LinkedHashMap<>();
        for (AppJvm k : kinds) {
            String th = k.threads();
            md.append(goalSection(phases, th, runs, goalJson));
            Table goals = new Table("measure (first run)", "value");
            Phase a = first(phases, 'A', th);
            Phase b = first(phases, 'B', th);
            Phase c = first(phases, 'C', th);
            Phase d = first(phases, 'D', th);
            Phase e = first(phases, 'E', th);
            Phase f = first(phases, 'F', th);
            if (a != null && c != null) {
                double r = ms(c.polite.allowed, 95) / ms(a.polite.allowed, 95);
                goals.row("issue 6's goal: well-behaved P95 with the runaway and Tollgate (C) vs no runaway at all (A), <= 1.5x",
                        Table.ratio(r) + (r <= 1.5 ? " met" : " not met"));
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
                goals.row("runaway 429 P50, Tollgate (C) vs NGINX (E)", Table.ratio(ms(c.wild.denied, 50) / ms(e.wild.denied, 50)));
            }
            if (a != null && f != null) {
                double r = ms(f.polite.allowed, 95) / ms(a.polite.allowed, 95);
                goals.row("issue 6's goal with Tollgate's Redis pool as large as the runaway's connections (F vs A)",
                        Table.ratio(r) + (r <= 1.5 ? " met" : " not met"));
            }
            if (!goals.rows().isEmpty()) {
                md.append(goals.markdown()).append('\n');
            }
        }
        if (kinds.size() > 1) {
            md.append(threadsSection(phases, runs, goalJson));
        }
        if (!jfr.isEmpty()) {
            md.append("## Flight recordings of the applications\n\n");
            jfr.forEach((app, text) -> md.append("### ").append(app).append("\n\n").append(text).append('\n'));
        }
        Files.writeString(out.resolve("scenario.md"), md.toString(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("scenario.csv"), t.csv(), StandardCharsets.UTF_8);

        List<Object> json = new ArrayList<>();
        Map<String, List<double[]>> curves = new LinkedHashMap<>();
        for (Phase p : phases) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("phase", p.name);
            j.put("run", p.run);
            j.put("threads", p.threads);
            j.put("loadAverage", p.loadAverage);
            j.put("seconds", p.seconds);
            j.put("wellBehaved", group(p.polite, p.seconds));
            j.put("runaway", group(p.wild, p.seconds));
            j.put("appCpuCores", p.appCpu);
            j.put("redisCpuCores", p.redisCpu);
            j.put("redisScriptCallsPerSecond", p.redisCalls);
            j.put("nginxCpuCores", p.edgeCpu);
            j.put("generatorCpuCores", p.generatorCpu);
            json.add(j);
            if (p.run <= 1) {
                curves.put(p.label() + ", well-behaved", curve(p.polite.allowed));
            }
        }
        for (Phase p : phases) {
            if (p.run <= 1 && p.runaway && p.wild.denied.getTotalCount() > 0) {
                curves.put(p.label() + ", runaway 429", curve(p.wild.denied));
            }
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("machine", machine);
        all.put("phases", json);
        all.put("goal", goalJson);
        Files.writeString(out.resolve("scenario.json"), Json.write(all), StandardCharsets.UTF_8);
        Charts.percentiles(out.resolve("latency-well-behaved.png"),
                "Latency by percentile: well-behaved clients (allowed) and the runaway's 429s", "ms (log)", curves, true);
        System.out.println();
        System.out.println(md);
        System.out.println("[bench] written: " + out.resolve("scenario.md") + ", scenario.csv, scenario.json,"
                + " latency-well-behaved.png");
    }

    /**
     * Issue 15's goal for one kind of request thread: per run, the well-behaved P95 with Tollgate
     * (C) over the same with NGINX in front (E), and the median of those ratios; beside it what
     * the application spent per refusal, with Tollgate and with a constant 429 (G), over what it
     * spent behind NGINX (which answers the refusals itself).
     */
    private static String goalSection(List<Phase> phases, String threads, int runs, Map<String, Object> json) {
        Table t = new Table("run", "load avg (C)", "well-behaved P95: C (Tollgate) / E (NGINX) / G (static 429), ms",
                "C / E", "G / E", "app CPU, cores: C / E / G", "app CPU µs per 429 beyond E: C / G",
                "Tollgate's own µs per 429 (C - G)");
        List<Double> ratios = new ArrayList<>();
        List<Double> floorRatios = new ArrayList<>();
        List<Double> own = new ArrayList<>();
        List<Map<String, Object>> perRun = new ArrayList<>();
        for (int r = runs > 1 ? 1 : 0; r <= runs; r++) {
            Phase c = find(phases, 'C', threads, r);
            Phase e = find(phases, 'E', threads, r);
            Phase g = find(phases, 'G', threads, r);
            if (c == null && e == null && g == null) {
                continue;
            }
            double pc = c == null ? Double.NaN : ms(c.polite.allowed, 95);
            double pe = e == null ? Double.NaN : ms(e.polite.allowed, 95);
            double pg = g == null ? Double.NaN : ms(g.polite.allowed, 95);
            double usC = c == null || e == null ? Double.NaN : perRefusalMicros(c, e);
            double usG = g == null || e == null ? Double.NaN : perRefusalMicros(g, e);
            if (!Double.isNaN(pc / pe)) {
                ratios.add(pc / pe);
            }
            if (!Double.isNaN(pg / pe)) {
                floorRatios.add(pg / pe);
            }
            if (!Double.isNaN(usC - usG)) {
                own.add(usC - usG);
            }
            t.row(r == 0 ? "1" : Integer.toString(r), c == null ? "-" : Table.num(c.loadAverage),
                    Table.num(pc) + " / " + Table.num(pe) + " / " + Table.num(pg), Table.ratio(pc / pe), Table.ratio(pg / pe),
                    cpu(c) + " / " + cpu(e) + " / " + cpu(g), Table.num(usC) + " / " + Table.num(usG), Table.num(usC - usG));
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("run", r);
            j.put("p95C", pc);
            j.put("p95E", pe);
            j.put("p95G", pg);
            j.put("ratioCE", pc / pe);
            j.put("appCpuMicrosPer429C", usC);
            j.put("appCpuMicrosPer429G", usG);
            perRun.add(j);
        }
        if (perRun.isEmpty()) {
            return "";
        }
        double median = median(ratios);
        t.row("**median**", "", "", "**" + Table.ratio(median) + "**", Table.ratio(median(floorRatios)), "", "",
                Table.num(median(own)));
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("runs", perRun);
        j.put("medianRatioCE", median);
        json.put(threads, j);
        return "## Issue 15's goal, " + threads + " request threads\n\n"
                + String.format(Locale.ROOT, "Well-behaved P95 with Tollgate (C) vs with NGINX in front (E), median of %d"
                        + " run(s): **%s**, target <= 1.05x: **%s**. The application's CPU per refused request beyond what"
                        + " it spends behind NGINX is (app CPU - app CPU of E) / 429s per second: with Tollgate (C) and with a"
                        + " filter that answers a constant 429 (G, Tomcat's floor).%n%n",
                ratios.size(), Table.ratio(median), Double.isNaN(median) ? "n/a" : median <= 1.05 ? "met" : "not met")
                + t.markdown() + '\n';
    }

    /** Virtual against platform request threads, phase by phase and run by run. */
    private static String threadsSection(List<Phase> phases, int runs, Map<String, Object> json) {
        Table t = new Table("phase", "run", "well-behaved P95, ms: platform / virtual", "virtual / platform",
                "app CPU, cores: platform / virtual", "runaway 429 P50, ms: platform / virtual");
        Map<String, Object> j = new LinkedHashMap<>();
        for (Phase v : phases) {
            if (!v.threads.equals("virtual")) {
                continue;
            }
            Phase p = find(phases, v.letter, "platform", v.run);
            if (p == null) {
                continue;
            }
            double pp = ms(p.polite.allowed, 95);
            double pv = ms(v.polite.allowed, 95);
            t.row(v.name, v.run == 0 ? "1" : Integer.toString(v.run), Table.num(pp) + " / " + Table.num(pv),
                    Table.ratio(pv / pp), cpu(p) + " / " + cpu(v),
                    v.runaway ? Table.num(ms(p.wild.denied, 50)) + " / " + Table.num(ms(v.wild.denied, 50)) : "-");
            j.put(v.letter + "/" + v.run, pv / pp);
        }
        json.put("virtualOverPlatformP95", j);
        return "## Virtual against platform request threads\n\n" + t.markdown() + '\n';
    }

    private static String cpu(Phase p) {
        return p == null ? "-" : Table.num(p.appCpu);
    }

    /** Application CPU µs per 429 of {@code p} beyond what the application spent behind NGINX ({@code e}). */
    private static double perRefusalMicros(Phase p, Phase e) {
        double refusals = p.wild.denied.getTotalCount() / p.seconds;
        return refusals == 0 ? Double.NaN : (p.appCpu - e.appCpu) / refusals * 1e6;
    }

    static double median(List<Double> xs) {
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static Phase find(List<Phase> phases, char letter, String threads, int run) {
        for (Phase p : phases) {
            if (p.letter == letter && p.threads.equals(threads) && p.run == run) {
                return p;
            }
        }
        return null;
    }

    /** The phase's first measurement: once-phases have run 0, repeated ones 1 to runs. */
    private static Phase first(List<Phase> phases, char letter, String threads) {
        Phase f = find(phases, letter, threads, 0);
        return f != null ? f : find(phases, letter, threads, 1);
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
        final Path dir;

        private App(Process process, int port, Path dir) {
            this.process = process;
            this.port = port;
            this.dir = dir;
        }

        static App start(Path dir, String mode, AppJvm jvm, String redisUri, String[] work) throws IOException {
            Files.createDirectories(dir);
            int port = RedisServer.freePort();
            List<String> cmd = new ArrayList<>(List.of(jvm.java().toString(), "-Xmx512m"));
            if (jvm.virtual()) {
                cmd.add("-Dtollgate.bench.virtual-threads=true");
            }
            if (jvm.jfr()) {
                // every pinned virtual thread and every contended monitor, whatever it cost
                String events = jvm.feature() >= 21
                        ? ",jdk.VirtualThreadPinned#enabled=true,jdk.VirtualThreadPinned#threshold=0ms,jdk.JavaMonitorEnter#threshold=0ms"
                        : ",jdk.JavaMonitorEnter#threshold=0ms";
                cmd.add("-XX:StartFlightRecording=filename=" + dir.resolve("app.jfr") + ",settings=profile,dumponexit=true" + events);
            }
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), AppServer.class.getName(),
                    Integer.toString(port), dir.resolve("tomcat").toString(), mode, redisUri));
            cmd.addAll(List.of(work));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            App app = new App(p, port, dir);
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
                    System.out.println("[bench] application " + mode + " on 127.0.0.1:" + port + " (" + line + ")");
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
            Processes.stop(process);
        }
    }
}
