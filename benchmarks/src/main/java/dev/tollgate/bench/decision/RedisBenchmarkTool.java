package dev.tollgate.bench.decision;

import dev.tollgate.bench.RedisServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The server-side ceiling: {@code redis-benchmark} (C, one thread, 50 connections, no pipelining)
 * sending one command as fast as Redis answers it. A Java client on the same two cores cannot beat
 * it; the ratio says how much of Redis' capacity a client-side decision path leaves unused.
 */
final class RedisBenchmarkTool {

    private final Path binary;
    private final RedisServer redis;

    private RedisBenchmarkTool(Path binary, RedisServer redis) {
        this.binary = binary;
        this.redis = redis;
    }

    /** Null when {@code redis-benchmark} is not on the PATH (Debian: redis-tools). */
    static RedisBenchmarkTool find(RedisServer redis) {
        Path b = RedisServer.onPath("redis-benchmark");
        return b == null ? null : new RedisBenchmarkTool(b, redis);
    }

    /**
     * Runs {@code requests} of one command from {@code clients} connections.
     *
     * @param keyspace when above 0, {@code __rand_int__} in the command is replaced by a random
     *                 number below it
     * @return requests per second, and the raw CSV line
     */
    Result run(int clients, int requests, int keyspace, String... command) {
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "-h", redis.host(),
                "-p", Integer.toString(redis.port()), "-c", Integer.toString(clients),
                "-n", Integer.toString(requests), "--csv"));
        if (keyspace > 0) {
            cmd.add("-r");
            cmd.add(Integer.toString(keyspace));
        }
        cmd.addAll(List.of(command));
        String out = RedisServer.run(cmd);
        for (String line : out.split("\r?\n")) {
            if (line.startsWith("\"test\"") || !line.startsWith("\"")) {
                continue;
            }
            String[] cells = line.split("\",\"");
            if (cells.length >= 2) {
                try {
                    double p50 = cells.length >= 5 ? Double.parseDouble(cells[4].replace("\"", "")) * 1000 : Double.NaN;
                    return new Result(Double.parseDouble(cells[1].replace("\"", "")), p50, line);
                } catch (NumberFormatException e) {
                    // try the next line
                }
            }
        }
        throw new IllegalStateException("redis-benchmark gave no figure for " + String.join(" ", command) + ":\n" + out);
    }

    /** Requests per second, and the median latency in µs. */
    record Result(double opsPerSecond, double p50Micros, String csv) {
    }
}
