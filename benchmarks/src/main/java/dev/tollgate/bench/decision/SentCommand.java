package dev.tollgate.bench.decision;

import dev.tollgate.RateLimiter;
import dev.tollgate.bench.Clients;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;

/**
 * The {@code EVALSHA} Tollgate sends for one decision, as Redis received it ({@code MONITOR}):
 * its script's digest, its key and its arguments. What {@code redis-benchmark} then sends, so that
 * the ceiling is measured on Tollgate's own script and arguments without reaching into its
 * internals.
 *
 * @param words the command's words, {@code EVALSHA <sha1> 1 <key> <arguments...>}
 * @param address the client address written in the key
 */
record SentCommand(List<String> words, String address) {

    /** The command for the bucket of {@code replacement} (an address, or {@code __rand_int__}). */
    String[] forClient(String replacement) {
        String[] out = words.toArray(new String[0]);
        if (!out[3].contains(address)) {
            throw new IllegalStateException("Tollgate's key does not carry the client address: " + out[3]);
        }
        out[3] = out[3].replace(address, replacement);
        return out;
    }

    /** One decision of {@code limiter} for a client at {@code address} seen by Redis. */
    static SentCommand capture(RateLimiter limiter, String address) throws Exception {
        CompletableFuture<List<String>> seen = new CompletableFuture<>();
        Jedis monitor = new Jedis("127.0.0.1", Clients.port());
        Thread t = new Thread(() -> {
            try {
                monitor.monitor(new JedisMonitor() {
                    @Override
                    public void onCommand(String command) {
                        List<String> words = words(command);
                        if (!words.isEmpty() && words.get(0).equalsIgnoreCase("evalsha")
                                && words.size() > 3 && words.get(3).contains(address)) {
                            seen.complete(words);
                        }
                    }
                });
            } catch (RuntimeException e) {
                seen.completeExceptionally(e); // the connection closed, below, once seen
            }
        }, "bench-monitor");
        t.setDaemon(true);
        t.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!seen.isDone() && System.nanoTime() < deadline) {
                limiter.check(Clients.request(address));
                Thread.sleep(50); // MONITOR starts on its own thread: ask again until it has
            }
            return new SentCommand(seen.get(1, TimeUnit.SECONDS), address);
        } finally {
            monitor.disconnect();
            t.join(1000);
        }
    }

    /** The quoted words of a MONITOR line, unescaped ({@code \"}, {@code \\}, {@code \xHH}, \n, \r, \t). */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        int i = line.indexOf('"');
        while (i >= 0 && i < line.length()) {
            ByteArrayOutputStream w = new ByteArrayOutputStream();
            int j = i + 1;
            while (j < line.length() && line.charAt(j) != '"') {
                char c = line.charAt(j);
                if (c == '\\' && j + 1 < line.length()) {
                    char n = line.charAt(j + 1);
                    if (n == 'x' && j + 3 < line.length()) {
                        w.write(Integer.parseInt(line.substring(j + 2, j + 4), 16));
                        j += 4;
                        continue;
                    }
                    w.write(n == 'n' ? '\n' : n == 'r' ? '\r' : n == 't' ? '\t' : n);
                    j += 2;
                    continue;
                }
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                w.write(b, 0, b.length);
                j++;
            }
            out.add(w.toString(StandardCharsets.UTF_8));
            i = line.indexOf('"', j + 1);
        }
        return out;
    }
}
