package dev.tollgate.examples.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the Prometheus rules of {@code docs/operations/}, checked against a
 * real Prometheus (Debian's 2.42) scraping the demo: {@code promtool check rules} on the rules, then
 * the demo on a free port (a {@code redis-server} of its own, Micrometer's Prometheus registry at
 * {@code /metrics}), Prometheus on another with its configuration and data in {@code target/},
 * traffic in three phases (within the limits; far beyond them; beyond them after Redis is killed),
 * and every query of the dashboard and of the rules evaluated: each must return data. The queries
 * are read from the two files (the rules through Prometheus' own {@code /api/v1/rules}, as it
 * loaded them), never listed here; each is printed with what it returned.
 *
 * <p>Run only in the {@code prometheus} profile ({@code mvn -Pprometheus -pl examples/demo -am
 * verify}), and fails, never skips, without {@code prometheus} and {@code promtool} on the PATH.
 */
class PrometheusIT {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** What Grafana puts in place of its variables, for a query sent to Prometheus as is. */
    private static final Map<String, String> GRAFANA_VARIABLES = Map.of("$__rate_interval", "1m", "$__range", "1h");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void everyDashboardAndAlertQueryReturnsDataFromAPrometheusScrapingTheDemo() throws Exception {
        Path prometheusBin = onPath("prometheus");
        Path promtool = onPath("promtool");
        assertNotNull(prometheusBin, "no prometheus on the PATH: this profile needs it (Debian: apt-get install prometheus)");
        assertNotNull(promtool, "no promtool on the PATH: this profile needs it (Debian: apt-get install prometheus)");
        Path operations = Path.of(System.getProperty("tg.operations")).toAbsolutePath().normalize();
        Path rules = operations.resolve("tollgate-alerts.yml");
        Path dashboard = operations.resolve("tollgate-dashboard.json");
        Path work = Files.createDirectories(Path.of(System.getProperty("tg.demo.work")).resolve("prometheus-it"));

        Process check = new ProcessBuilder(promtool.toString(), "check", "rules", rules.toString()).redirectErrorStream(true).start();
        String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, check.waitFor(), "promtool check rules:\n" + checked);
        System.out.println("[prometheus-it] promtool check rules " + rules.getFileName() + ":\n" + checked.strip());

        int demoPort = freePort();
        Process demo = startDemo(work, demoPort);
        Process prometheus = null;
        try {
            String started = read(work.resolve("demo.out"));
            assertTrue(started.contains("  store:  Redis at redis://127.0.0.1:"), "the demo runs on a redis-server of its own:\n" + started);
            int promPort = freePort();
            prometheus = startPrometheus(prometheusBin, work, promPort, demoPort, rules);
            URI api = URI.create("http://127.0.0.1:" + promPort);
            awaitReady(prometheus, api, work.resolve("prometheus.out"));

            // a quiet baseline long enough that the refusals after it are a jump (TollgateRefusalRatioJump)
            phase("1: within the limits", demoPort, 45, 2);
            phase("2: far beyond them", demoPort, 10, 30);
            List<ProcessHandle> redis = demo.descendants() // Debian's redis-server is a link to redis-check-rdb
                    .filter(p -> p.info().command().orElse("").contains("redis")).toList();
            assertEquals(1, redis.size(), "the demo's redis-server: " + redis);
            redis.get(0).destroyForcibly(); // the demo's own Redis, started for this test
            System.out.println("[prometheus-it] redis-server " + redis.get(0).pid() + " killed");
            phase("3: beyond them, Redis dead", demoPort, 10, 20);
            awaitScrape(api); // the last phase's samples and rule evaluations are in

            Map<String, String> queries = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : dashboardQueries(dashboard).entrySet()) {
                queries.put(e.getKey(), substitute(e.getValue()));
            }
            Map<String, String> loaded = ruleQueries(api);
            assertEquals(4, loaded.size(), "the rules Prometheus loaded from " + rules.getFileName() + ": " + loaded);
            queries.putAll(loaded);

            List<String> empty = new ArrayList<>();
            StringBuilder report = new StringBuilder();
            for (Map.Entry<String, String> q : queries.entrySet()) {
                JsonArray result = query(api, q.getValue());
                String shown = show(result);
                report.append(q.getKey()).append("\n  ").append(q.getValue()).append("\n  => ").append(shown).append('\n');
                if (result.isEmpty()) {
                    empty.add(q.getKey());
                }
            }
            report.append("alerts: ").append(get(api.resolve("/api/v1/alerts")).body()).append('\n');
            Files.writeString(work.resolve("queries.txt"), report.toString(), StandardCharsets.UTF_8);
            System.out.println("[prometheus-it] every query and what it returned:\n" + report);
            assertEquals(List.of(), empty, "queries that returned no data");
        } finally {
            if (prometheus != null) {
                stop(prometheus);
            }
            stopDemo(demo);
        }
    }

    private static Process startDemo(Path work, int port) throws IOException, InterruptedException {
        Path out = work.resolve("demo.out");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Demo.class.getName(), System.getProperty("tg.demo.war"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("TOLLGATE_"));
        pb.environment().put("PORT", Integer.toString(port));
        // a second policy on /api/work, so that there are policies to rank; web.xml's default (5/s burst 10) covers /api/*
        pb.environment().put("TOLLGATE_POLICIES", "default,work");
        pb.environment().put("TOLLGATE_POLICY_WORK_LIMITS", "2/s burst 2");
        pb.environment().put("TOLLGATE_POLICY_WORK_MATCH", "/api/work");
        pb.environment().put("TOLLGATE_REDIS_TIMEOUT", "2s"); // a loaded machine's first calls, not Redis' health
        Process demo = pb.start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!read(out).contains("Stop with Ctrl-C.")) {
            if (!demo.isAlive() || System.nanoTime() > deadline) {
                demo.destroyForcibly();
                throw new AssertionError("the demo did not start; its output:\n" + read(out));
            }
            Thread.sleep(100); // polling another process's output
        }
        return demo;
    }

    private static Process startPrometheus(Path bin, Path work, int port, int demoPort, Path rules) throws IOException {
        Path data = work.resolve("data");
        deleteTree(data);
        Path config = work.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - '" + rules + "'",
                "scrape_configs:",
                "  - job_name: tollgate-demo",
                "    metrics_path: /metrics",
                "    static_configs:",
                "      - targets: ['127.0.0.1:" + demoPort + "']",
                ""), StandardCharsets.UTF_8);
        return new ProcessBuilder(bin.toString(), "--config.file=" + config, "--storage.tsdb.path=" + data,
                "--web.listen-address=127.0.0.1:" + port, "--storage.tsdb.retention.time=1h")
                .redirectErrorStream(true).redirectOutput(work.resolve("prometheus.out").toFile()).start();
    }

    private static void awaitReady(Process prometheus, URI api, Path out) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            assertTrue(prometheus.isAlive(), () -> "Prometheus ended; its output:\n" + readQuietly(out));
            assertTrue(System.nanoTime() < deadline, () -> "Prometheus not ready; its output:\n" + readQuietly(out));
            try {
                if (get(api.resolve("/-/ready")).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200); // polling another process
        }
    }

    /**
     * {@code perSecond} requests a second for {@code seconds}, to {@code /api/hello} and, one in
     * three, {@code /api/work}; prints what they got.
     */
    private static void phase(String name, int port, int seconds, int perSecond) throws Exception {
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        List<CompletableFuture<HttpResponse<Void>>> pending = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            long second = System.nanoTime();
            for (int i = 0; i < perSecond; i++) {
                String path = i % 3 == 2 ? "/api/work" : "/api/hello";
                pending.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.discarding()));
            }
            long left = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - second);
            if (left > 0) {
                TimeUnit.NANOSECONDS.sleep(left); // pacing the load, not timing anything
            }
        }
        for (CompletableFuture<HttpResponse<Void>> f : pending) {
            statuses.merge(f.get().statusCode(), 1, Integer::sum);
        }
        System.out.println("[prometheus-it] phase " + name + ": " + pending.size() + " requests, by status " + statuses);
    }

    /** Waits for two scrapes after now: the samples sent before are in, and the rules evaluated on them. */
    private static void awaitScrape(URI api) throws Exception {
        double now = System.currentTimeMillis() / 1000.0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            JsonArray up = query(api, "timestamp(up{job=\"tollgate-demo\"})");
            if (!up.isEmpty() && up.get(0).getAsJsonObject().getAsJsonArray("value").get(1).getAsDouble() > now + 1) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "no scrape of the demo after the traffic: " + up);
            Thread.sleep(250); // polling Prometheus
        }
    }

    /** Each panel target's expression, by "panel title (refId)", read from the dashboard's JSON. */
    static Map<String, String> dashboardQueries(Path dashboard) throws IOException {
        JsonObject d = JsonParser.parseString(Files.readString(dashboard, StandardCharsets.UTF_8)).getAsJsonObject();
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonElement p : d.getAsJsonArray("panels")) {
            JsonObject panel = p.getAsJsonObject();
            for (JsonElement t : panel.getAsJsonArray("targets")) {
                JsonObject target = t.getAsJsonObject();
                out.put("dashboard: " + panel.get("title").getAsString() + " (" + target.get("refId").getAsString() + ")",
                        target.get("expr").getAsString());
            }
        }
        assertFalse(out.isEmpty(), "no query in " + dashboard);
        return out;
    }

    /** Each rule's expression as Prometheus loaded it, by "rule: name". */
    private static Map<String, String> ruleQueries(URI api) throws Exception {
        JsonObject body = JsonParser.parseString(get(api.resolve("/api/v1/rules")).body()).getAsJsonObject();
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonElement g : body.getAsJsonObject("data").getAsJsonArray("groups")) {
            for (JsonElement r : g.getAsJsonObject().getAsJsonArray("rules")) {
                JsonObject rule = r.getAsJsonObject();
                out.put(rule.get("type").getAsString() + ": " + rule.get("name").getAsString(), rule.get("query").getAsString());
            }
        }
        return out;
    }

    static String substitute(String expr) {
        String q = expr;
        for (Map.Entry<String, String> v : GRAFANA_VARIABLES.entrySet()) {
            q = q.replace(v.getKey(), v.getValue());
        }
        assertFalse(q.contains("$"), "a Grafana variable this test does not know: " + q);
        return q;
    }

    private static JsonArray query(URI api, String promql) throws Exception {
        HttpResponse<String> r = get(api.resolve("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)));
        assertEquals(200, r.statusCode(), promql + ": " + r.body());
        JsonObject body = JsonParser.parseString(r.body()).getAsJsonObject();
        assertEquals("success", body.get("status").getAsString(), promql + ": " + r.body());
        JsonObject data = body.getAsJsonObject("data");
        assertEquals("vector", data.get("resultType").getAsString(), promql);
        return data.getAsJsonArray("result");
    }

    /** {@code {labels} value; ...}, the instance and job labels left out. */
    private static String show(JsonArray result) {
        if (result.isEmpty()) {
            return "(no data)";
        }
        List<String> items = new ArrayList<>();
        for (JsonElement e : result) {
            JsonObject sample = e.getAsJsonObject();
            String labels = sample.getAsJsonObject("metric").entrySet().stream()
                    .filter(l -> !l.getKey().equals("instance") && !l.getKey().equals("job"))
                    .map(l -> l.getKey() + "=" + l.getValue().getAsString()).collect(Collectors.joining(",", "{", "}"));
            double v = sample.getAsJsonArray("value").get(1).getAsDouble();
            items.add(labels + " " + String.format(java.util.Locale.ROOT, "%.4g", v));
        }
        return String.join("; ", items);
    }

    private static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy(); // SIGTERM
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    private static void stopDemo(Process demo) throws InterruptedException {
        List<ProcessHandle> children = demo.descendants().toList();
        stop(demo); // SIGTERM: the demo stops Tomcat and its redis-server
        children.forEach(ProcessHandle::destroyForcibly);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static String read(Path out) throws IOException {
        return Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
    }

    private static String readQuietly(Path out) {
        try {
            return read(out);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }
}
