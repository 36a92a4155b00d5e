package dev.tollgate.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy between one limiter node and Redis whose fault the harness sets: what a half-failing
 * network or Redis does to a node, one node at a time. Commands and replies are pumped chunk by
 * chunk by two threads per connection; each chunk looks at the fault in force when it arrives.
 *
 * <ul>
 * <li>{@link Fault#NONE}: bytes pass at once.</li>
 * <li>{@link Fault#LATENCY}: each reply chunk waits a delay, with jitter, before it is passed on.</li>
 * <li>{@link Fault#DROP_REPLIES}: commands reach Redis and run; their replies are thrown away. The
 *     node sees a timeout for a call that took effect: the lost reply after {@code bucket.lua} ran.</li>
 * <li>{@link Fault#RESET}: every open connection is reset (RST), and so is every new one.</li>
 * <li>{@link Fault#BLACK_HOLE}: connections stay open and nothing passes either way.</li>
 * <li>{@link Fault#SLOW_CLOSE}: nothing passes, and each connection is closed only after a while.</li>
 * </ul>
 *
 * Thread-safe. Only loopback: it listens on 127.0.0.1 and connects to the Redis it was given there.
 */
final class FaultProxy implements AutoCloseable {

    enum Fault { NONE, LATENCY, DROP_REPLIES, RESET, BLACK_HOLE, SLOW_CLOSE }

    private final int redisPort;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile Fault fault = Fault.NONE;
    private volatile long latencyMicros;
    private volatile long jitterMicros;
    private final SplittableRandom jitter;

    FaultProxy(int redisPort, long seed) {
        this.redisPort = redisPort;
        this.jitter = new SplittableRandom(seed);
        try {
            this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        daemon("fault-proxy-accept-" + port(), this::accept).start();
    }

    int port() {
        return server.getLocalPort();
    }

    Fault fault() {
        return fault;
    }

    /** Sets the fault in force from now on; {@code RESET} and {@code SLOW_CLOSE} act on open connections at once. */
    void set(Fault next, long latencyMicros, long jitterMicros) {
        this.latencyMicros = latencyMicros;
        this.jitterMicros = jitterMicros;
        this.fault = next;
        if (next == Fault.RESET) {
            for (Socket s : sockets) {
                reset(s);
            }
        } else if (next == Fault.SLOW_CLOSE) {
            List<Socket> open = List.copyOf(sockets);
            daemon("fault-proxy-slow-close", () -> {
                sleepMicros(1_500_000);
                open.forEach(FaultProxy::quietClose);
            }).start();
        }
    }

    void heal() {
        set(Fault.NONE, 0, 0);
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (fault == Fault.RESET) {
                reset(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), redisPort), 1000);
            } catch (IOException e) {
                // Redis is down: the node sees its connection closed, as it would without the proxy.
                quietClose(client);
                quietClose(upstream);
                continue;
            }
            sockets.add(client);
            sockets.add(upstream);
            daemon("fault-proxy-up", () -> pump(client, upstream, false)).start();
            daemon("fault-proxy-down", () -> pump(upstream, client, true)).start();
        }
    }

    /** Copies from one side to the other, chunk by chunk, under the fault in force; closes both at the end. */
    private void pump(Socket from, Socket to, boolean replies) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                Fault f = fault;
                if (f == Fault.BLACK_HOLE || f == Fault.SLOW_CLOSE || f == Fault.RESET) {
                    continue; // swallowed: nothing passes
                }
                if (replies && f == Fault.DROP_REPLIES) {
                    continue; // the command ran; its reply is lost
                }
                if (replies && f == Fault.LATENCY) {
                    long j = jitterMicros;
                    long wait;
                    synchronized (jitter) {
                        wait = latencyMicros + (j > 0 ? jitter.nextLong(j + 1) : 0);
                    }
                    sleepMicros(wait);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // a side went away: close the other below
        } finally {
            quietClose(from);
            quietClose(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0); // close() then sends RST, not FIN
        } catch (IOException e) {
            // already closed
        }
        quietClose(s);
    }

    private static void quietClose(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    private static void sleepMicros(long micros) {
        try {
            TimeUnit.MICROSECONDS.sleep(micros);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Socket s : sockets) {
            quietClose(s);
        }
    }
}
