package dev.tollgate.bench.engine;

import dev.tollgate.RateLimiter;
import dev.tollgate.bench.Clients;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.servlet.TollgateFilter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * What {@link TollgateFilter#doFilter} costs per request above the container (issue 15): the
 * filter over a request and response of its own that keep attributes and headers in arrays and
 * discard the body, so that the time and bytes measured are the filter's and the engine's, not
 * Tomcat's. Keyed by {@code X-Client-Id}, as the article's runaway client is.
 *
 * <ul>
 *   <li>{@code redisFilterRefused}: one client over {@code 10/s burst 20} on Redis: after its
 *       burst, every request a refusal, nearly all from the deny cache (Redis once per refusal
 *       window), each answered 429 with its headers and problem document;</li>
 *   <li>{@code redisFilterAllowed}: {@code clients} rotating ids under a limit none reaches, on
 *       Redis: every request an allowed decision with its {@code RateLimit} headers;</li>
 *   <li>{@code localFilterAllowed}: the same in memory (no Redis round trip in the time).</li>
 * </ul>
 *
 * <p>A request the fake does not expect (a servlet method the filter did not call before) throws,
 * so the figures cannot silently measure another path; each benchmark counts the answers it did
 * not expect (a pass where a refusal was due, or the reverse) and reports them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FilterBench {

    static final String HEADER = "X-Client-Id";

    /** How many ids the allowed benchmarks rotate over. */
    @Param({"10000"})
    public int clients = 10_000;

    private TollgateFilter filter;
    private RateLimiter limiter;
    private String[] ids;
    private int next;
    private final FakeRequest request = new FakeRequest();
    private final FakeResponse response = new FakeResponse();
    private final FilterChain chain = (req, resp) -> response.passed = true;
    private long unexpected;
    private String expect;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        String b = params.getBenchmark();
        setUp(b.substring(b.lastIndexOf('.') + 1));
    }

    /** Sets up for one benchmark method, by name (also for {@link AllocationSites}). */
    void setUp(String method) {
        switch (method) {
            case "redisFilterRefused" -> {
                limiter = RateLimiter.create(config(true, "10/s burst 20"));
                ids = new String[] {"runaway-1"};
                expect = "refused";
            }
            case "redisFilterAllowed" -> {
                limiter = RateLimiter.create(config(true, "1000000/s burst 1000000"));
                ids = ids(clients);
                expect = "allowed";
            }
            case "localFilterAllowed" -> {
                limiter = RateLimiter.create(config(false, "1000000/s burst 1000000"));
                ids = ids(clients);
                expect = "allowed";
            }
            default -> throw new IllegalStateException("unknown benchmark " + method);
        }
        filter = new TollgateFilter(limiter);
    }

    private static String[] ids(int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = "client-" + i;
        }
        return out;
    }

    private static TollgateConfig config(boolean redis, String limit) {
        Map<String, String> values = new HashMap<>();
        values.put("tollgate.policy.default.limits", limit);
        values.put("tollgate.policy.default.key", "header:" + HEADER);
        values.put("tollgate.local.max-keys", "100000");
        if (redis) {
            values.put("tollgate.redis.uri", "redis://127.0.0.1:" + Clients.port());
        }
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("benchmark", values)),
                FilterBench.class.getClassLoader());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (unexpected > 0) {
            System.out.println("[bench] " + unexpected + " answers were not " + expect);
        }
        limiter.close();
    }

    @Benchmark
    public int redisFilterRefused() throws Exception {
        return call(false);
    }

    @Benchmark
    public int redisFilterAllowed() throws Exception {
        return call(true);
    }

    @Benchmark
    public int localFilterAllowed() throws Exception {
        return call(true);
    }

    /** One request through the filter; the answer's status (0 when it passed) and header count. */
    int call(boolean allowed) throws Exception {
        String id = ids[next];
        next = next + 1 == ids.length ? 0 : next + 1;
        request.reset(id);
        response.clear();
        filter.doFilter(request, response, chain);
        if (response.passed != allowed) {
            unexpected++;
        }
        return response.status + response.headers + response.bodyBytes;
    }

    private static <T> T refusing(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(FilterBench.class.getClassLoader(), new Class<?>[] {type},
                (p, m, a) -> {
                    throw new UnsupportedOperationException("the bench's fake has no " + m.getName());
                }));
    }

    /** GET /api/hello from 127.0.0.1 with one {@code X-Client-Id}; attributes in two arrays. */
    static final class FakeRequest extends HttpServletRequestWrapper {
        private final String[] names = new String[8];
        private final Object[] values = new Object[8];
        private int count;
        private String id;

        FakeRequest() {
            super(refusing(HttpServletRequest.class));
        }

        void reset(String clientId) {
            this.id = clientId;
            for (int i = 0; i < count; i++) {
                names[i] = null;
                values[i] = null;
            }
            count = 0;
        }

        @Override
        public String getMethod() {
            return "GET";
        }

        @Override
        public String getServletPath() {
            return "/api";
        }

        @Override
        public String getPathInfo() {
            return "/hello";
        }

        @Override
        public String getRemoteAddr() {
            return "127.0.0.1";
        }

        @Override
        public String getHeader(String name) {
            return HEADER.equalsIgnoreCase(name) ? id : null;
        }

        @Override
        public Object getAttribute(String name) {
            for (int i = 0; i < count; i++) {
                if (names[i].equals(name)) {
                    return values[i];
                }
            }
            return null;
        }

        @Override
        public void setAttribute(String name, Object o) {
            for (int i = 0; i < count; i++) {
                if (names[i].equals(name)) {
                    values[i] = o;
                    return;
                }
            }
            names[count] = name;
            values[count++] = o;
        }

        @Override
        public boolean isAsyncStarted() {
            return false;
        }
    }

    /** Counts headers and body bytes; keeps nothing. */
    static final class FakeResponse extends HttpServletResponseWrapper {
        int status;
        int headers;
        int bodyBytes;
        boolean passed;
        private final ServletOutputStream out = new ServletOutputStream() {
            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener writeListener) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void write(int b) {
                bodyBytes++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                bodyBytes += len;
            }
        };

        FakeResponse() {
            super(refusing(HttpServletResponse.class));
        }

        void clear() {
            status = 0;
            headers = 0;
            bodyBytes = 0;
            passed = false;
        }

        @Override
        public void addHeader(String name, String value) {
            headers += name.length() + value.length();
        }

        @Override
        public void setHeader(String name, String value) {
            headers += name.length() + value.length();
        }

        @Override
        public void setStatus(int sc) {
            status = sc;
        }

        @Override
        public void setContentType(String type) {
        }

        @Override
        public void setCharacterEncoding(String charset) {
        }

        @Override
        public void setContentLength(int len) {
        }

        @Override
        public ServletOutputStream getOutputStream() {
            return out;
        }
    }
}
