package dev.tollgate.internal.redis;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Histogram;

/**
 * The same commands as {@link ScriptFloor}'s redis-benchmark runs, sent one at a time on one
 * connection from this JVM, one call of each contender in turn (the order rotating every round),
 * each call timed with {@link System#nanoTime()}: contenders meet the same load call by call,
 * and the median has the histogram's 3 significant digits instead of redis-benchmark's 8 µs steps.
 * Commands are encoded before the clock starts (one per key of the key space), replies are skipped
 * without being decoded.
 */
final class ScriptFloorCalls {

    private ScriptFloorCalls() {
    }

    /** One contender: RESP-encoded commands, one of which is sent per call. */
    record Commands(String name, byte[][] encoded) {

        static Commands of(String name, int keyspace, String... command) {
            if (keyspace == 0) {
                return new Commands(name, new byte[][] {encode(command, null)});
            }
            byte[][] e = new byte[keyspace][];
            for (int k = 0; k < keyspace; k++) {
                e[k] = encode(command, String.format("%012d", k));
            }
            return new Commands(name, e);
        }
    }

    /** Interleaved calls: warm-up rounds first, then {@code rounds} timed; a histogram per contender, in ns. */
    static Histogram[] run(String host, int port, List<Commands> contenders, int warmup, int rounds) throws IOException {
        Histogram[] h = new Histogram[contenders.size()];
        for (int i = 0; i < h.length; i++) {
            h[i] = new Histogram(10_000_000_000L, 3);
        }
        try (Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), 2000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int n = contenders.size();
            for (int r = 0; r < warmup + rounds; r++) {
                for (int j = 0; j < n; j++) {
                    int i = (j + r) % n;
                    byte[][] e = contenders.get(i).encoded();
                    byte[] command = e[e.length == 1 ? 0 : random.nextInt(e.length)];
                    long t0 = System.nanoTime();
                    out.write(command);
                    out.flush();
                    skipReply(in);
                    long t = System.nanoTime() - t0;
                    if (r >= warmup) {
                        h[i].recordValue(Math.min(t, h[i].getHighestTrackableValue()));
                    }
                }
            }
        }
        return h;
    }

    /** RESP of the command, {@code __rand_int__} replaced by {@code key} when given. */
    private static byte[] encode(String[] command, String key) {
        StringBuilder sb = new StringBuilder("*").append(command.length).append("\r\n");
        for (String a : command) {
            String v = key == null ? a : a.replace("__rand_int__", key);
            byte[] b = v.getBytes(StandardCharsets.UTF_8);
            sb.append('$').append(b.length).append("\r\n").append(v).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Reads one whole reply; an error reply stops the run (a contender must not measure an error). */
    private static void skipReply(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("Redis closed the connection");
        }
        String line = line(in);
        switch (type) {
            case '+', ':' -> { }
            case '-' -> throw new IllegalStateException("Redis answered an error: " + line);
            case '$' -> {
                int len = Integer.parseInt(line);
                if (len >= 0) {
                    in.readNBytes(len + 2);
                }
            }
            case '*' -> {
                int count = Integer.parseInt(line);
                for (int i = 0; i < count; i++) {
                    skipReply(in);
                }
            }
            default -> throw new IOException("unexpected reply type " + (char) type);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new EOFException("Redis closed the connection");
            }
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
    }
}
