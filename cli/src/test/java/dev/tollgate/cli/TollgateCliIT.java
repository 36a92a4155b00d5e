package dev.tollgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool against a real Redis, on the buckets a limiter of the same configuration filled: inspect
 * shows them, reset empties them (logged with the OS user, the client by fingerprint), a reset on a
 * production-looking Redis is refused without {@code --yes}, and the shaded jar runs with
 * {@code java -jar}.
 */
@WithRedis
class TollgateCliIT {

    static final String CLIENT = "198.51.100.31";
    /** The tool reads the configuration as a filter does: a policy without limits stops it (TOLLGATE-002). */
    static final Map<String, String> ENV = Map.of("TOLLGATE_POLICY_DEFAULT_LIMITS", "3/min");

    @TempDir
    Path dir;

    record Run(int status, String out, String err) {
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = TollgateCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), ENV, "tester");
        Run r = new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        System.out.println("[cli] " + String.join(" ", args) + "\n  status " + r.status() + "\n" + r.out() + r.err());
        return r;
    }

    @Test
    void inspectShowsWhatALimiterTookAndResetGivesItBack(RedisProcess redis) throws Exception {
        Path config = dir.resolve("tollgate.properties");
        Files.writeString(config, String.join("\n",
                "tollgate.policies=api",
                "tollgate.policy.api.limits=3/min",
                "tollgate.redis.key-prefix=cli-it:",
                "tollgate.deny-cache=false",
                "tollgate.jmx=false",
                ""));
        Map<String, String> values = new java.util.HashMap<>();
        java.util.Properties p = new java.util.Properties();
        try (var in = Files.newInputStream(config)) {
            p.load(in);
        }
        p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
        values.put("tollgate.redis.uri", redis.uri());
        TollgateConfig c = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test", values)), null);

        List<String> log = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                synchronized (log) {
                    log.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger.getLogger("dev.tollgate").addHandler(capture);
        try (RateLimiter rl = RateLimiter.create(c)) {
            for (int i = 0; i < 3; i++) {
                assertTrue(rl.check(TestRequest.get("/").from(CLIENT)).allowed());
            }
            assertFalse(rl.check(TestRequest.get("/").from(CLIENT)).allowed());

            String[] common = {"--redis", redis.uri(), "--policy", "api", "--client", "ip=" + CLIENT, "--config", config.toString()};
            Run inspect = run(concat("inspect", common));
            assertEquals(0, inspect.status(), inspect.err());
            assertTrue(inspect.out().contains("key cli-it:default:{ip=" + CLIENT + "}:api"), "the filter's key layout: " + inspect.out());
            assertTrue(inspect.out().contains("3/min: 0 of 3 tokens left, full in "), inspect.out());

            // the same client in another application's namespace: its own buckets, untouched
            try (RateLimiter shop = RateLimiter.create(c.withNamespace("/shop"), "shop", null)) {
                assertTrue(shop.check(TestRequest.get("/").from(CLIENT)).allowed());
            }
            Run inShop = run(concat("inspect", concat("--namespace", concat("/shop", common))));
            assertEquals(0, inShop.status(), inShop.err());
            assertTrue(inShop.out().contains("key cli-it:/shop:{ip=" + CLIENT + "}:api"), inShop.out());
            assertTrue(inShop.out().contains("3/min: 2 of 3 tokens left"), inShop.out());

            Run reset = run(concat("reset", common));
            assertEquals(0, reset.status(), reset.err());
            assertTrue(reset.out().contains("1 of 2 keys deleted"), reset.out());
            assertTrue(rl.check(TestRequest.get("/").from(CLIENT)).allowed(), "admitted again after the reset");

            List<String> lines;
            synchronized (log) {
                lines = new ArrayList<>(log);
            }
            List<String> resets = lines.stream().filter(l -> l.startsWith("TOLLGATE-040")).toList();
            assertEquals(1, resets.size(), lines.toString());
            assertTrue(resets.get(0).contains("reset by cli:tester") && resets.get(0).contains("client ip#"), resets.get(0));
            lines.forEach(l -> assertFalse(l.contains(CLIENT), "the client in the clear in the log: " + l));

            Run unknown = run("inspect", "--redis", redis.uri(), "--policy", "nope", "--client", "ip=" + CLIENT,
                    "--config", config.toString());
            assertEquals(2, unknown.status());
            assertTrue(unknown.err().contains("TOLLGATE-003") && unknown.err().contains("'nope'"), unknown.err());
        } finally {
            Logger.getLogger("dev.tollgate").removeHandler(capture);
        }
    }

    @Test
    void aResetOnAProductionLookingRedisNeedsYes(RedisProcess redis) {
        for (String uri : List.of("rediss://127.0.0.1:" + redis.port(), "redis://10.20.30.40:6379", "redis://redis-prod:6379")) {
            Run refused = run("reset", "--redis", uri, "--policy", "default", "--client", "ip=" + CLIENT);
            assertEquals(3, refused.status(), uri);
            assertTrue(refused.err().startsWith("not reset: the Redis looks like production ("), refused.err());
        }
        Run onLoopback = run("reset", "--redis", redis.uri(), "--policy", "default", "--client", "ip=" + CLIENT);
        assertEquals(0, onLoopback.status(), "a loopback Redis is no production: " + onLoopback.err());
        Run withYes = run("reset", "--redis", "redis://localhost:" + redis.port(), "--policy", "default", "--client",
                "ip=" + CLIENT, "--yes");
        assertEquals(0, withYes.status(), withYes.err());
    }

    @Test
    void theJarRunsWithJavaDashJar(RedisProcess redis) throws Exception {
        Path jar = Path.of(System.getProperty("tg.cli.jar"));
        assertTrue(Files.isRegularFile(jar), jar.toString());
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString(),
                "inspect", "--redis", redis.uri(), "--policy", "default", "--client", "ip=" + CLIENT)
                .redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("TOLLGATE_"));
        pb.environment().putAll(ENV);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        System.out.println("[cli] java -jar tollgate-cli.jar inspect ...: status " + p.exitValue() + "\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("policy default, client ip=" + CLIENT) && out.contains("tokens left"), out);
        assertFalse(out.contains("SLF4J"), "Jedis' log has its binding: " + out);

        Process usage = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString()).redirectErrorStream(true).start();
        String text = new String(usage.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(usage.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, usage.exitValue());
        assertTrue(text.startsWith("usage: java -jar tollgate-cli.jar inspect|reset"), text);
    }

    private static String[] concat(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
