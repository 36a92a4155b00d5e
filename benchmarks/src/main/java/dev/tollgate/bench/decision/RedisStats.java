package dev.tollgate.bench.decision;

import dev.tollgate.bench.Clients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * What Redis itself saw during one JMH trial: calls and microseconds per command
 * ({@code INFO commandstats}) and the server's CPU time ({@code INFO cpu}). Reset when the trial
 * starts, written to {@code <out>/stats/<benchmark>.properties} when it ends, so the harness can
 * tell how many Redis calls one decision costs and how much Redis CPU each takes. Warm-up
 * iterations are included.
 */
final class RedisStats {

    private double cpuAtStart;

    void start(RedisClient jedis) {
        jedis.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        cpuAtStart = cpuSeconds(jedis);
    }

    void finish(RedisClient jedis, BenchmarkParams params, long operations, long fallbacks) {
        String out = System.getProperty(Clients.OUT);
        if (out == null) {
            return;
        }
        Map<String, String> values = new LinkedHashMap<>();
        values.put("operations", Long.toString(operations));
        values.put("fallbacks", Long.toString(fallbacks));
        values.put("redis.cpu.seconds", Double.toString(cpuSeconds(jedis) - cpuAtStart));
        for (String line : jedis.info("commandstats").split("\r?\n")) {
            // cmdstat_evalsha:calls=123,usec=456,usec_per_call=3.71,rejected_calls=0,failed_calls=0
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String cmd = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (cmd.equals("config") || cmd.equals("info") || cmd.equals("client") || cmd.equals("script")
                    || cmd.equals("hello")) {
                continue;
            }
            for (String kv : line.substring(line.indexOf(':') + 1).split(",")) {
                String[] p = kv.split("=", 2);
                if (p[0].equals("calls") || p[0].equals("usec")) {
                    values.put("cmd." + cmd + "." + p[0], p[1]);
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        try {
            Path dir = Path.of(out, "stats");
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(name(params) + ".properties"), sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** benchmark method, parameters and threads, e.g. {@code tollgateCheck-keys=1-t64-pool16}. */
    static String name(BenchmarkParams params) {
        String b = params.getBenchmark();
        StringBuilder sb = new StringBuilder(b.substring(b.lastIndexOf('.') + 1));
        for (String k : params.getParamsKeys()) {
            sb.append('-').append(k).append('=').append(params.getParam(k));
        }
        sb.append("-t").append(params.getThreads()).append("-pool").append(Clients.poolSize());
        return sb.toString();
    }

    private static double cpuSeconds(RedisClient jedis) {
        double sum = 0;
        for (String line : jedis.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                sum += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return sum;
    }
}
