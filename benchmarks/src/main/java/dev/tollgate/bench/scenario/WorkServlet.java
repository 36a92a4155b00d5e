package dev.tollgate.bench.scenario;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * The application of the scenario, an endpoint that costs something, so that a flood hurts: each
 * request does some CPU work (SHA-256 rounds, calibrated at start to about {@code cpuMicros}),
 * then holds one of {@code slots} "database connections" for {@code holdMicros}. With 8 slots held
 * 5 ms each it serves at most 1,600 requests per second; beyond that requests queue for a slot,
 * as they would for a real connection pool.
 */
public final class WorkServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);

    private final transient Semaphore database;
    private final long holdNanos;
    private final int rounds;
    private volatile byte[] sink;

    public WorkServlet(int slots, long holdMicros, long cpuMicros) {
        this.database = new Semaphore(slots, true);
        this.holdNanos = holdMicros * 1000;
        this.rounds = calibrate(cpuMicros);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        sink = work(rounds);
        database.acquireUninterruptibly();
        try {
            long end = System.nanoTime() + holdNanos;
            for (long left = holdNanos; left > 0; left = end - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
        } finally {
            database.release();
        }
        resp.setContentType("text/plain");
        resp.setContentLength(OK.length);
        resp.getOutputStream().write(OK);
    }

    private static byte[] work(int rounds) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] b = new byte[256];
            for (int i = 0; i < rounds; i++) {
                md.update(b);
                b = java.util.Arrays.copyOf(md.digest(), 256);
            }
            return b;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rounds of {@link #work} that take about {@code micros} on this machine, measured warm. */
    private static int calibrate(long micros) {
        if (micros <= 0) {
            return 0;
        }
        work(20_000);
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            work(2_000);
            best = Math.min(best, System.nanoTime() - t0);
        }
        double nanosPerRound = best / 2000.0;
        return (int) Math.max(1, Math.round(micros * 1000 / nanosPerRound));
    }
}
