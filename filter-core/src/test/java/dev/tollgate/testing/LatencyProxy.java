package dev.tollgate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy in front of a real Redis that holds every reply for a set time before passing it
 * on: a slow network or a slow Redis, as a fault to inject, like {@code SIGSTOP}. Requests pass at
 * once; each chunk of reply bytes leaves {@code delay} after it arrived, so a round trip costs
 * {@code delay} more, whatever else is in flight. When Redis closes a connection (a restart), the
 * proxy closes its client's, so the client finds a dead pooled connection as it would without it.
 * Thread-safe.
 */
public final class LatencyProxy implements RedisEndpoint, AutoCloseable {

    private static final byte[] EOF = new byte[0];

    private final RedisEndpoint redis;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** The client side of each connection, closed when either side ends it. */
    private final List<Socket> clients = new CopyOnWriteArrayList<>();
    private volatile long delayNanos;

    private LatencyProxy(RedisEndpoint redis) {
        this.redis = redis;
        try {
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the proxy has passed on every close Redis made: no client connection is left open
     * (after a restart, the clients' pooled connections are dead, as they would be without the
     * proxy). The end of a connection is held like a reply, so set the delay after this.
     *
     * @throws IllegalStateException when a connection is still open after {@code patience}
     */
    public void awaitNoConnections(Duration patience) throws InterruptedException {
        long end = System.nanoTime() + patience.toNanos();
        while (clients.stream().anyMatch(c -> !c.isClosed())) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException(clients.stream().filter(c -> !c.isClosed()).count()
                        + " client connection(s) still open " + patience + " after Redis closed them");
            }
            Thread.sleep(5); // waiting for the proxy's threads, not timing anything
        }
    }

    /** Starts a proxy to {@code redis} that adds nothing yet. */
    public static LatencyProxy start(RedisEndpoint redis) {
        LatencyProxy p = new LatencyProxy(redis);
        daemon("latency-proxy-accept", p::accept).start();
        return p;
    }

    /** From now on, every reply is held this long. */
    public void delay(Duration d) {
        delayNanos = d.toNanos();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(redis.host(), redis.port()), 2_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                clients.add(client);
                daemon("latency-proxy-up", () -> pump(client, upstream, false)).start();
                daemon("latency-proxy-down", () -> pump(upstream, client, true)).start();
            } catch (IOException e) {
                // closed, or Redis refused the connection: the client sees its connection end
            }
        }
    }

    /** Copies {@code from} to {@code to}; replies wait out the delay on a second thread, in order. */
    private void pump(Socket from, Socket to, boolean delayed) {
        LinkedBlockingQueue<Object[]> queue = new LinkedBlockingQueue<>();
        if (delayed) {
            daemon("latency-proxy-hold", () -> release(queue, to)).start();
        }
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            byte[] buf = new byte[16 * 1024];
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (delayed) {
                    queue.add(new Object[] {System.nanoTime() + delayNanos, Arrays.copyOf(buf, n)});
                } else {
                    out.write(buf, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // one side closed
        }
        if (delayed) {
            queue.add(new Object[] {System.nanoTime() + delayNanos, EOF});
        } else {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void release(LinkedBlockingQueue<Object[]> queue, Socket to) {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                Object[] chunk = queue.take();
                long wait = (long) chunk[0] - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // the injected latency itself
                }
                byte[] bytes = (byte[]) chunk[1];
                if (bytes == EOF) {
                    break;
                }
                out.write(bytes);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the client went away
        }
        closeQuietly(to);
    }

    @Override
    public String host() {
        return server.getInetAddress().getHostAddress();
    }

    @Override
    public int port() {
        return server.getLocalPort();
    }

    @Override
    public String kind() {
        return "latency proxy to " + redis.kind();
    }

    /** Straight to Redis, without the delay. */
    @Override
    public String command(String... args) {
        return redis.command(args);
    }

    @Override
    public void close() {
        closeQuietly(server);
        sockets.forEach(LatencyProxy::closeQuietly);
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // best effort
        }
    }
}
