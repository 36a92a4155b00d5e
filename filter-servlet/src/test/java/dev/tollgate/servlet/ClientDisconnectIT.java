package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.Retry;
import dev.tollgate.testing.WithRedis;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * A client that disconnects from an async request gets its slot back, in a real Tomcat 11 over a
 * real Redis, and this is what Tomcat does (observed with 11.0.27, NIO connector):
 * <ul>
 * <li>While the async request is idle (the application neither reads nor writes), Tomcat does not
 * notice the disconnect at all. The request stays in flight until its async timeout, when
 * Tomcat calls {@code onTimeout} and then {@code onComplete}; no {@code onError}. Tomcat checks
 * async timeouts about once a second, so the slot comes back between the timeout and about a
 * second after it. An async request without a timeout ({@code setTimeout(0)}) that never writes
 * would hold its slot until the lease: the Servlet API gives a filter no way to see that
 * disconnect sooner.</li>
 * <li>When the application writes to the response after the disconnect, the write fails
 * ({@code ClientAbortException}, a broken pipe) and Tomcat calls {@code onError} at once, then
 * {@code onComplete}: the slot comes back within milliseconds, long before the timeout.</li>
 * </ul>
 */
@WithRedis
class ClientDisconnectIT {

    private static final long ASYNC_TIMEOUT_MS = 1_000;
    /** Long enough that a slot back within it came back by an async event, not by the lease. */
    private static final String LEASE = "20s";

    /** An async servlet that never completes by itself, recording the async events it sees. */
    static final class Hold {
        final AtomicInteger entered = new AtomicInteger();
        final List<String> events = new CopyOnWriteArrayList<>();

        void add(Context c) {
            Wrapper w = Tomcat.addServlet(c, "hold", new HttpServlet() {
                private static final long serialVersionUID = 1L;

                @Override
                protected void service(HttpServletRequest req, HttpServletResponse resp) {
                    AsyncContext ctx = req.startAsync();
                    ctx.addListener(new AsyncListener() {
                        @Override
                        public void onComplete(AsyncEvent e) {
                            events.add("complete");
                        }

                        @Override
                        public void onTimeout(AsyncEvent e) {
                            events.add("timeout");
                        }

                        @Override
                        public void onError(AsyncEvent e) {
                            events.add("error");
                        }

                        @Override
                        public void onStartAsync(AsyncEvent e) {
                            // not started again
                        }
                    });
                    if (req.getParameter("write") == null) {
                        ctx.setTimeout(ASYNC_TIMEOUT_MS);
                    } else {
                        ctx.setTimeout(15_000);
                        ctx.start(() -> streamUntilTheClientIsGone(ctx));
                    }
                    entered.incrementAndGet();
                }
            });
            w.setAsyncSupported(true);
            c.addServletMappingDecoded("/api/hold", "hold");
        }

        /** Writes a chunk every 50 ms until a write fails, as a long download or event stream would. */
        private static void streamUntilTheClientIsGone(AsyncContext ctx) {
            try {
                for (int i = 0; i < 300; i++) {
                    ctx.getResponse().getOutputStream().write(new byte[8192]);
                    ctx.getResponse().flushBuffer();
                    Thread.sleep(50);
                }
            } catch (IOException e) {
                // the client is gone: the container reports it to the listeners
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Sends the request over a raw socket, waits until the servlet has it, closes the socket
     * without reading, and returns the nanoTime of the close once the next request is admitted.
     */
    private static long disconnectAndAwaitTheSlot(EmbeddedTomcat t, Hold hold, String target, Duration within) throws Exception {
        long closedAt;
        try (Socket s = new Socket("127.0.0.1", t.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Retry.until(Duration.ofSeconds(5), () -> {
                if (hold.entered.get() == 0) {
                    throw new IllegalStateException("the servlet has not started the request");
                }
                return true;
            });
            closedAt = System.nanoTime();
        }
        // one slot: the next request is admitted only once the disconnected one gave it back
        Retry.until(within, () -> {
            try {
                int code = t.get("/api/hello").statusCode();
                if (code != 200) {
                    throw new IllegalStateException("the disconnected request still holds the slot: " + code);
                }
                return code;
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        return closedAt;
    }

    @Test
    void anIdleAsyncRequestWhoseClientLeftGivesItsSlotBackAtItsAsyncTimeout(RedisEndpoint redis) throws Exception {
        Hold hold = new Hold();
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                ConcurrencyIT.params(redis, "disconnect-" + System.nanoTime() + ":", "1", LEASE), Map.of(), hold::add)) {
            // the timeout, Tomcat's one-second timeout check, and a margin for a slow machine
            Duration bound = Duration.ofMillis(ASYNC_TIMEOUT_MS + 1_000 + 2_000);
            long closedAt = disconnectAndAwaitTheSlot(t, hold, "/api/hold", bound);
            long tookMs = (System.nanoTime() - closedAt) / 1_000_000;
            assertTrue(tookMs < bound.toMillis(), "slot back " + tookMs + " ms after the disconnect");
            assertEquals("timeout", hold.events.get(0), "Tomcat saw the idle disconnect only at the timeout: " + hold.events);
            assertFalse(hold.events.contains("error"), "no error event for an idle disconnect: " + hold.events);
        }
    }

    @Test
    void aWritingAsyncRequestWhoseClientLeftGivesItsSlotBackOnTheFailedWrite(RedisEndpoint redis) throws Exception {
        Hold hold = new Hold();
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                ConcurrencyIT.params(redis, "disconnect-" + System.nanoTime() + ":", "1", LEASE), Map.of(), hold::add)) {
            // far below the 15 s async timeout: the failed write ends the request
            Duration bound = Duration.ofSeconds(5);
            long closedAt = disconnectAndAwaitTheSlot(t, hold, "/api/hold?write=1", bound);
            long tookMs = (System.nanoTime() - closedAt) / 1_000_000;
            assertTrue(tookMs < bound.toMillis(), "slot back " + tookMs + " ms after the disconnect");
            assertEquals("error", hold.events.get(0), "the failed write is reported as an error: " + hold.events);
        }
    }
}
