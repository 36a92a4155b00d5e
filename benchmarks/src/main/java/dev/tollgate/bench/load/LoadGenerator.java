package dev.tollgate.bench.load;

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
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The one HTTP load generator of the benchmarks, over loopback, each phase bounded in time. A
 * minimal HTTP/1.1 client on blocking keep-alive sockets, one thread per connection: on two shared
 * cores the JDK's HttpClient spent more CPU than the application it was loading, which made it the
 * bottleneck. Two kinds of load, alone or together:
 *
 * <ul>
 *   <li>{@link #openLoop}: requests at a fixed {@code rate} per second whatever the answers, over
 *       the generator's {@code connections} keep-alive connections, which stay open from phase to
 *       phase until {@link #close}. A request whose moment has passed by more than 50 ms because
 *       every connection was busy is counted as not sent, not hidden. Request {@code n} carries the
 *       client id {@code ids[n mod ids.length]} (the appcpu benchmark's many clients, or the
 *       scenario's one runaway).</li>
 *   <li>{@link #phase}: {@code clients} well-behaved clients, each on a connection of its own for
 *       the phase, sending one request every 1/{@code clientRate} seconds (jittered by ±10 %) and
 *       waiting for its answer, beside an open loop (the runaway) when its rate is above 0.</li>
 * </ul>
 *
 * Every client is told apart by its {@value #HEADER} header. Latency is measured from sending the
 * request to reading the whole response, in HdrHistogram, apart for 200 and 429 answers.
 *
 * <p>Not thread-safe: one phase at a time.
 */
public final class LoadGenerator implements AutoCloseable {

    /** The header that names the client. */
    public static final String HEADER = "X-Client-Id";
    /** How late an open-loop request may start before it counts as not sent. */
    static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How late a well-behaved client's request may start before it counts as late. */
    static final long POLITE_LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** What one group of clients saw in one phase. */
    public static final class Group {
        public final Histogram allowed = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        public final Histogram denied = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        public final AtomicLong other = new AtomicLong();
        public final AtomicLong errors = new AtomicLong();
        public final AtomicLong sent = new AtomicLong();
        public final AtomicLong notSent = new AtomicLong();
        public final AtomicLong late = new AtomicLong();

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

        /** Answers of any status. */
        public long answered() {
            return allowed.getTotalCount() + denied.getTotalCount() + other.get();
        }

        /** Every answer's latency, 200s and 429s together. */
        public Histogram all() {
            Histogram h = allowed.copy();
            h.add(denied);
            return h;
        }
    }

    /**
     * The moments of an open loop: ticket {@code n} is due {@code n / rate} seconds after the
     * start, however many connections take tickets.
     */
    static final class Tickets {
        private final long start;
        private final double nanosPerTicket;
        private final AtomicLong next = new AtomicLong();

        Tickets(long start, int rate) {
            if (rate <= 0) {
                throw new IllegalArgumentException("rate must be above 0, is " + rate);
            }
            this.start = start;
            this.nanosPerTicket = 1e9 / rate;
        }

        /** The number of the next ticket. */
        long take() {
            return next.getAndIncrement();
        }

        /** The moment ticket {@code n} is due, in {@link System#nanoTime} terms. */
        long due(long n) {
            return start + (long) (n * nanosPerTicket);
        }
    }

    private final String host;
    private final int port;
    private final Connection[] pool;

    /**
     * @param connections the open loop's keep-alive connections, opened on first use and kept
     *                    from phase to phase
     */
    public LoadGenerator(String host, int port, int connections) {
        this.host = host;
        this.port = port;
        this.pool = new Connection[connections];
        for (int i = 0; i < connections; i++) {
            pool[i] = new Connection();
        }
    }

    /**
     * An open loop alone: {@code GET path} {@code rate} times per second for {@code length}, over
     * the generator's connections, request {@code n} from client {@code ids[n mod ids.length]}.
     * Returns when every connection has had its last answer.
     */
    public Group openLoop(String path, List<String> ids, int rate, Duration length) throws InterruptedException {
        Group g = new Group();
        long start = System.nanoTime();
        List<Thread> threads = openLoop(g, path, ids, new Tickets(start, rate), start + length.toNanos());
        for (Thread t : threads) {
            t.join();
        }
        return g;
    }

    /**
     * One phase of the scenario: {@code clients} well-behaved clients ({@code client-0}, ...) at
     * {@code clientRate} each, and, when {@code runawayRate} is above 0, the client {@code runaway}
     * in an open loop at that rate over the generator's connections. Returns the two groups,
     * well-behaved first, when every client has had its last answer (bounded by the socket timeout
     * of 30 s).
     */
    public Group[] phase(String path, Duration length, int clients, double clientRate, int runawayRate)
            throws InterruptedException {
        Group polite = new Group();
        Group runaway = new Group();
        long start = System.nanoTime();
        long end = start + length.toNanos();
        long periodNanos = (long) (1e9 / clientRate);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            byte[] request = request(path, "client-" + c);
            threads.add(thread("polite-" + c, () -> polite(polite, request, start, periodNanos, end)));
        }
        if (runawayRate > 0) {
            threads.addAll(openLoop(runaway, path, List.of("runaway"), new Tickets(start, runawayRate), end));
        }
        for (Thread t : threads) {
            t.join();
        }
        return new Group[] {polite, runaway};
    }

    private List<Thread> openLoop(Group g, String path, List<String> ids, Tickets tickets, long end) {
        byte[][] requests = new byte[ids.size()][];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = request(path, ids.get(i));
        }
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < pool.length; c++) {
            Connection conn = pool[c];
            threads.add(thread("load-" + c, () -> {
                while (true) {
                    long n = tickets.take();
                    long at = tickets.due(n);
                    if (at >= end) {
                        return;
                    }
                    if (System.nanoTime() - at > LATE_NANOS) {
                        g.notSent.incrementAndGet(); // every connection was busy: the load is not that fast
                        continue;
                    }
                    sleepUntil(at);
                    exchange(g, conn, requests[(int) (n % requests.length)]);
                }
            }));
        }
        return threads;
    }

    private void polite(Group g, byte[] request, long start, long periodNanos, long end) {
        Connection conn = new Connection();
        long at = start + ThreadLocalRandom.current().nextLong(periodNanos);
        try {
            while (at < end) {
                sleepUntil(at);
                if (System.nanoTime() - at > POLITE_LATE_NANOS) {
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

    private static Thread thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void exchange(Group g, Connection conn, byte[] request) {
        g.sent.incrementAndGet();
        long t0 = System.nanoTime();
        try {
            int status = conn.send(request);
            g.record(status, System.nanoTime() - t0);
        } catch (IOException | RuntimeException e) {
            g.errors.incrementAndGet();
            conn.close();
        }
    }

    private static void sleepUntil(long at) {
        for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** The bytes of {@code GET path} from client {@code id}. */
    byte[] request(String path, String id) {
        return ("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n" + HEADER + ": " + id
                + "\r\nUser-Agent: tollgate-bench\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        for (Connection c : pool) {
            c.close();
        }
    }

    /** One keep-alive connection, opened on first use and again after the server closed it. */
    final class Connection {
        private Socket socket;
        private OutputStream out;
        private InputStream in;
        private final StringBuilder line = new StringBuilder(128);

        /** Sends one request and reads its whole answer; its status. */
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
                String lower = h.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(lower.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
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
