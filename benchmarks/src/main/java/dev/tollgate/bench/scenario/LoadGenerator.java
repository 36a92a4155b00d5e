package dev.tollgate.bench.scenario;

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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The clients of the scenario, over loopback only, each phase bounded in time. A minimal HTTP/1.1
 * client on blocking keep-alive sockets, one thread per connection: on two shared cores the JDK's
 * HttpClient spent more CPU than the application it was loading, which made it the bottleneck.
 *
 * <ul>
 *   <li>{@code clients} well-behaved clients, each on its own connection, sending one request
 *       every 1/{@code clientRate} seconds (jittered) and waiting for its answer;</li>
 *   <li>one runaway client that wants {@code rate} requests per second whatever the answers, over
 *       at most {@code connections} connections: a request whose moment has passed by more than
 *       50 ms because every connection was busy is counted as not sent, not hidden.</li>
 * </ul>
 *
 * Every client is told apart by its {@code X-Client-Id} header. Latency is measured from sending
 * the request to reading the whole response, in HdrHistogram, apart for 200 and 429 answers.
 */
final class LoadGenerator implements AutoCloseable {

    static final String HEADER = "X-Client-Id";
    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** What one group of clients saw in one phase. */
    static final class Group {
        final Histogram allowed = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final Histogram denied = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong other = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        final AtomicLong notSent = new AtomicLong();
        final AtomicLong late = new AtomicLong();

        void record(int status, long nanos) {
            Histogram h = status == 200 ? allowed : status == 429 ? denied : null;
            if (h == null) {
                other.incrementAndGet();
                return;
            }
            synchronized (h) {
                h.recordValue(Math.min(nanos, h.getHighestTrackableValue()));
            }
        }

        long answered() {
            return allowed.getTotalCount() + denied.getTotalCount() + other.get();
        }
    }

    private final String host;
    private final int port;
    private final String path;

    LoadGenerator(String host, int port, String path) {
        this.host = host;
        this.port = port;
        this.path = path;
    }

    /**
     * Runs one phase; returns when every client has had its last answer (bounded by the socket
     * timeout of 30 s).
     *
     * @param runawayRate 0 for no runaway
     */
    Group[] run(Duration length, int clients, double clientRate, int runawayRate, int connections)
            throws InterruptedException {
        Group polite = new Group();
        Group runaway = new Group();
        long start = System.nanoTime();
        long end = start + length.toNanos();
        long periodNanos = (long) (1e9 / clientRate);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            String id = "client-" + c;
            threads.add(thread("polite-" + c, () -> polite(polite, id, start, periodNanos, end)));
        }
        if (runawayRate > 0) {
            Tickets tickets = new Tickets(start, runawayRate);
            for (int c = 0; c < connections; c++) {
                threads.add(thread("runaway-" + c, () -> runaway(runaway, tickets, end)));
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        return new Group[] {polite, runaway};
    }

    private static Thread thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void polite(Group g, String id, long start, long periodNanos, long end) {
        byte[] request = request(id);
        Connection conn = new Connection();
        long at = start + ThreadLocalRandom.current().nextLong(periodNanos);
        try {
            while (at < end) {
                sleepUntil(at);
                if (System.nanoTime() - at > TimeUnit.MILLISECONDS.toNanos(10)) {
                    g.late.incrementAndGet();
                }
                exchange(g, conn, request);
                long jitter = (long) (periodNanos * 0.2 * (ThreadLocalRandom.current().nextDouble() - 0.5));
                at = Math.max(at + periodNanos + jitter, System.nanoTime());
            }
        } finally {
            conn.close();
        }
    }

    /** Hands out the moments at which the runaway wants to send, {@code rate} per second. */
    private static final class Tickets {
        private final long start;
        private final double nanosPerTicket;
        private long next;

        Tickets(long start, int rate) {
            this.start = start;
            this.nanosPerTicket = 1e9 / rate;
        }

        synchronized long take() {
            return start + (long) (next++ * nanosPerTicket);
        }
    }

    private void runaway(Group g, Tickets tickets, long end) {
        byte[] request = request("runaway");
        Connection conn = new Connection();
        try {
            while (true) {
                long at = tickets.take();
                if (at >= end) {
                    return;
                }
                if (System.nanoTime() - at > LATE_NANOS) {
                    g.notSent.incrementAndGet(); // every connection was busy: the runaway is not that fast
                    continue;
                }
                sleepUntil(at);
                exchange(g, conn, request);
            }
        } finally {
            conn.close();
        }
    }

    private void exchange(Group g, Connection conn, byte[] request) {
        g.sent.incrementAndGet();
        long t0 = System.nanoTime();
        try {
            int status = conn.send(request);
            g.record(status, System.nanoTime() - t0);
        } catch (IOException e) {
            g.errors.incrementAndGet();
            conn.close();
        }
    }

    private static void sleepUntil(long at) {
        for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private byte[] request(String id) {
        return ("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n" + HEADER + ": " + id
                + "\r\nUser-Agent: tollgate-bench\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** One keep-alive connection, reopened when the server closes it. */
    private final class Connection {
        private Socket socket;
        private OutputStream out;
        private InputStream in;

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
            long length = -1;
            boolean chunked = false;
            boolean close = false;
            for (String h = line(); h != null && !h.isEmpty(); h = line()) {
                String lower = h.toLowerCase(java.util.Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(lower.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
                    close = true;
                }
            }
            if (chunked) {
                for (long n = Long.parseLong(line().split(";")[0].trim(), 16); n > 0;
                     n = Long.parseLong(line().split(";")[0].trim(), 16)) {
                    skip(n);
                    line();
                }
                line();
            } else if (length > 0) {
                skip(length);
            }
            if (close) {
                close();
            }
            return code;
        }

        private void skip(long n) throws IOException {
            while (n > 0) {
                long s = in.skip(n);
                if (s <= 0) {
                    if (in.read() < 0) {
                        throw new IOException("connection closed in a body");
                    }
                    s = 1;
                }
                n -= s;
            }
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder(64);
            int c;
            while ((c = in.read()) >= 0) {
                if (c == '\n') {
                    int len = sb.length();
                    return len > 0 && sb.charAt(len - 1) == '\r' ? sb.substring(0, len - 1) : sb.toString();
                }
                sb.append((char) c);
            }
            return sb.length() == 0 ? null : sb.toString();
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

    @Override
    public void close() {
        // threads end with their phase
    }
}
