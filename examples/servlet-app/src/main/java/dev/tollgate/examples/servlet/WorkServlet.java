package dev.tollgate.examples.servlet;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.UnavailableException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /api/work}: an endpoint that costs what a typical slow endpoint costs, so that a flood
 * hurts it (the article's "slowest endpoint of your API"). Each request spends {@code cpu-micros}
 * of its thread's own CPU time hashing, then waits for one of {@code pool-size} "database
 * connections" and holds it {@code hold-millis}, as a query would. With the defaults (1 ms of CPU,
 * 10 connections held 50 ms) it serves at most 200 requests per second; beyond that requests queue
 * for a connection, as they would for a real pool, and give up with 503 after
 * {@code pool-timeout-millis}.
 *
 * <p>The four values are init-params (web.xml); a bad one stops the application at start-up (the
 * servlet is loaded on start-up) with a message naming the parameter, the value and what is
 * accepted.
 */
public class WorkServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** One init-param: its name, default and accepted range. */
    record Param(String name, long defaultValue, long min, long max) {

        /** The value of {@code text} (the default when absent), or why it is refused. */
        long read(String text) throws UnavailableException {
            if (text == null || text.isBlank()) {
                return defaultValue;
            }
            try {
                long v = Long.parseLong(text.strip());
                if (v >= min && v <= max) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw new UnavailableException("work servlet: init-param " + name + "='" + text
                    + "' is not accepted; accepted: a whole number from " + min + " to " + max);
        }
    }

    static final Param CPU_MICROS = new Param("cpu-micros", 1_000, 0, 1_000_000);
    static final Param POOL_SIZE = new Param("pool-size", 10, 1, 10_000);
    static final Param HOLD_MILLIS = new Param("hold-millis", 50, 0, 60_000);
    static final Param POOL_TIMEOUT_MILLIS = new Param("pool-timeout-millis", 10_000, 1, 600_000);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private transient Semaphore pool;
    private long cpuNanos;
    private long holdMillis;
    private long poolTimeoutMillis;
    private int poolSize;
    private transient volatile byte[] sink;

    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        cpuNanos = CPU_MICROS.read(config.getInitParameter(CPU_MICROS.name())) * 1_000;
        poolSize = (int) POOL_SIZE.read(config.getInitParameter(POOL_SIZE.name()));
        holdMillis = HOLD_MILLIS.read(config.getInitParameter(HOLD_MILLIS.name()));
        poolTimeoutMillis = POOL_TIMEOUT_MILLIS.read(config.getInitParameter(POOL_TIMEOUT_MILLIS.name()));
        pool = new Semaphore(poolSize, true);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        sink = burn(cpuNanos);
        boolean connected;
        try {
            connected = pool.tryAcquire(poolTimeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            resp.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "interrupted while waiting for a connection");
            return;
        }
        if (!connected) {
            resp.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE,
                    "no connection of " + poolSize + " free within " + poolTimeoutMillis + " ms");
            return;
        }
        try {
            Thread.sleep(holdMillis); // the query: the connection is busy, this thread waits
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            pool.release();
        }
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().println("worked: " + cpuNanos / 1_000 + " us of CPU, then " + holdMillis
                + " ms on one of " + poolSize + " connections");
    }

    /**
     * Hashes until this thread has spent {@code nanos} of CPU time (of its own, so a loaded machine
     * makes a request slower, not cheaper); wall-clock time where the JVM does not measure a thread's.
     */
    private static byte[] burn(long nanos) {
        if (nanos <= 0) {
            return null;
        }
        boolean cpuClock = THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
        long start = cpuClock ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        byte[] block = new byte[1024];
        while (true) {
            for (int i = 0; i < 8; i++) {
                sha.update(block);
                byte[] d = sha.digest();
                System.arraycopy(d, 0, block, 0, d.length);
            }
            long now = cpuClock ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
            if (now - start >= nanos) {
                return block;
            }
        }
    }
}
