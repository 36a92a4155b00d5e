package dev.tollgate.bench.appcpu;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Open-loop load over loopback: {@code rate} requests per second on a fixed schedule, over
 * {@code connections} keep-alive connections that stay open from phase to phase (one thread each,
 * blocking sockets, a minimal HTTP/1.1 client as the scenario's). A request whose moment passed by
 * more than 50 ms because every connection was busy is counted as not sent, not hidden. Request
 * {@code i} of a phase carries client id {@code i mod ids} in {@code X-Client-Id}. Each phase is
 * bounded in time; {@link #close} closes every connection.
 *
 * <p>Not thread-safe: one phase at a time.
 */
final class OpenLoop implements AutoCloseable {

    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** What one phase saw: latency from sending to the whole answer, of 200s and of 429s. */
    static final class Result {
        final Histogram ok = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final Histogram refused = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong other = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong notSent = new AtomicLong();

        long answered() {
            return ok.getTotalCount() + refused.getTotalCount() + other.get();
        }

        /** Every answer's latency, 200s and 429s together. */
        Histogram all() {
            Histogram h = ok.copy();
            h.add(refused);
            return h;
        }
    }

    private final String host;
    private final int port;
    private final Connection[] connections;

    OpenLoop(String host, int port, int connections) {
        this.host = host;
        this.port = port;
        this.connections = new Connection[connections];
        for (int i = 0; i < connections; i++) {
            this.connections[i] = new Connection();
        }
    }

    /** Requests {@code GET path} with {@code ids} client ids in turn, for {@code length}. */
    Result run(String path, int ids, int rate, Duration length) throws InterruptedException {
        byte[][] requests = new byte[ids][];
        for (int i = 0; i < ids; i++) {
            requests[i] = ("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n" + AppCpuServer.HEADER
                    + ": client-" + i + "\r\nUser-Agent: tollgate-bench\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }
        Result r = new Result();
        long start = System.nanoTime();
        long end = start + length.toNanos();
        double nanosPerTicket = 1e9 / rate;
        AtomicLong tickets = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (Connection c : connections) {
            Thread t = new Thread(() -> {
                while (true) {
                    long n = tickets.getAndIncrement();
                    long at = start + (long) (n * nanosPerTicket);
                    if (at >= end) {
                        return;
                    }
                    if (System.nanoTime() - at > LATE_NANOS) {
                        r.notSent.incrementAndGet();
                        continue;
                    }
                    for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime()) {
                        LockSupport.parkNanos(left);
                    }
                    long t0 = System.nanoTime();
                    try {
                        int status = c.send(requests[(int) (n % ids)]);
                        long nanos = System.nanoTime() - t0;
                        Histogram h = status == 200 ? r.ok : status == 429 ? r.refused : null;
                        if (h == null) {
                            r.other.incrementAndGet();
                        } else {
                            synchronized (h) {
                                h.recordValue(Math.min(nanos, h.getHighestTrackableValue()));
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        r.errors.incrementAndGet();
                        c.close();
                    }
                }
            }, "load");
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        return r;
    }

    @Override
    public void close() {
        for (Connection c : connections) {
            c.close();
        }
    }

    /** One keep-alive connection, opened on first use and again after the server closed it. */
    private final class Connection {
        private Socket socket;
        private OutputStream out;
        private InputStream in;
        private final StringBuilder line = new StringBuilder(128);

        int send(byte[] request) throws IOException {
            if (socket == null) {
                socket = new Socket();
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(30_000);
                socket.connect(new InetSocketAddress(host, port), 5_000);
                out = socket.getOutputStream();
                in = new BufferedInputStream(socket.getInputStream(), 8192);
            }
            out.write(request);
            out.flush();
            String status = line();
            if (status == null) {
                throw new IOException("connection closed");
            }
            int code = Integer.parseInt(status.substring(9, 12));
            long length = 0;
            boolean chunked = false;
            boolean close = false;
            for (String h = line(); h != null && !h.isEmpty(); h = line()) {
                if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Long.parseLong(h.substring(15).trim());
                } else if (h.regionMatches(true, 0, "transfer-encoding:", 0, 18)) {
                    chunked = true;
                } else if (h.regionMatches(true, 0, "connection:", 0, 11) && h.toLowerCase().contains("close")) {
                    close = true;
                }
            }
            if (chunked) {
                for (long n = chunk(); n > 0; n = chunk()) {
                    skip(n);
                    line();
                }
                line();
            } else {
                skip(length);
            }
            if (close) {
                close();
            }
            return code;
        }

        private long chunk() throws IOException {
            String size = line();
            if (size == null) {
                throw new IOException("connection closed in a body");
            }
            int semi = size.indexOf(';');
            return Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
        }

        private void skip(long n) throws IOException {
            for (; n > 0; n--) {
                if (in.read() < 0) {
                    throw new IOException("connection closed in a body");
                }
            }
        }

        private String line() throws IOException {
            line.setLength(0);
            int c;
            while ((c = in.read()) >= 0) {
                if (c == '\n') {
                    int len = line.length();
                    return len > 0 && line.charAt(len - 1) == '\r' ? line.substring(0, len - 1) : line.toString();
                }
                line.append((char) c);
            }
            return line.length() == 0 ? null : line.toString();
        }

        void close() {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // closing anyway
                }
                socket = null;
            }
        }
    }
}
