package dev.tollgate.bench.appcpu;

import dev.tollgate.servlet.TollgateFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * The application JVM of {@link AppCpuRun}: one embedded Tomcat 11 with four paths that differ only
 * in what they do before the same bare answer ({@code ok}, 3 bytes):
 *
 * <ul>
 *   <li>{@code /bare}: nothing;</li>
 *   <li>{@code /ping}: one Jedis {@code PING} on a pooled {@link RedisClient} built as Tollgate's
 *       {@code JedisPort} builds its own (timeouts {@code t/4} of the default 100 ms budget, a pool of
 *       16 with the same settings);</li>
 *   <li>{@code /allowed/*}: {@link TollgateFilter} with Tollgate's defaults over the same Redis and a
 *       limit no client reaches ({@code 1000000/s burst 1000000} per {@code X-Client-Id}): every
 *       request is an allowed decision made by Redis;</li>
 *   <li>{@code /refused/*}: another {@link TollgateFilter} with {@code 10/s burst 20} per
 *       {@code X-Client-Id}, which the one client sending there exceeds: its refusals.</li>
 * </ul>
 *
 * <p>Arguments: {@code port baseDir redisPort}. Prints {@code READY} when it serves, and stops when
 * its standard input closes.
 */
public final class AppCpuServer {

    static final String HEADER = dev.tollgate.bench.load.LoadGenerator.HEADER;
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);
    /** Tollgate's default {@code tollgate.redis.timeout}; JedisPort gives a quarter to each wait. */
    private static final Duration BUDGET = Duration.ofMillis(100);
    /** Tollgate's default {@code tollgate.redis.pool-size}. */
    private static final int POOL = 16;

    private AppCpuServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path base = Path.of(args[1]);
        int redisPort = Integer.parseInt(args[2]);
        String redisUri = "redis://127.0.0.1:" + redisPort;

        Files.createDirectories(base);
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = tomcat.getConnector();
        connector.setPort(port);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", "200");
        connector.setProperty("acceptCount", "1000");
        connector.setProperty("maxKeepAliveRequests", "-1");
        Context ctx = tomcat.addContext("", null);
        RedisClient jedis = pingClient(redisPort);
        Tomcat.addServlet(ctx, "bare", new Bare());
        Tomcat.addServlet(ctx, "ping", new Ping(jedis));
        ctx.addServletMappingDecoded("/bare", "bare");
        ctx.addServletMappingDecoded("/allowed/*", "bare");
        ctx.addServletMappingDecoded("/refused/*", "bare");
        ctx.addServletMappingDecoded("/ping", "ping");
        filter(ctx, "allow", "/allowed/*", Map.of("tollgate.policy.default.limits", "1000000/s burst 1000000",
                "tollgate.policy.default.key", "header:" + HEADER, "tollgate.redis.uri", redisUri));
        filter(ctx, "refuse", "/refused/*", Map.of("tollgate.policy.default.limits", "10/s burst 20",
                "tollgate.policy.default.key", "header:" + HEADER, "tollgate.redis.uri", redisUri));
        tomcat.start();
        System.out.println("READY " + port + " pid " + ProcessHandle.current().pid());
        System.out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (in.readLine() != null) {
                // wait for the harness to close our input
            }
        }
        tomcat.stop();
        tomcat.destroy();
        jedis.close();
        System.exit(0);
    }

    private static void filter(Context ctx, String name, String pattern, Map<String, String> params) {
        FilterDef def = new FilterDef();
        def.setFilterName(name);
        def.setFilterClass(TollgateFilter.class.getName());
        def.setAsyncSupported("true");
        params.forEach(def::addInitParameter);
        ctx.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName(name);
        map.addURLPattern(pattern);
        ctx.addFilterMap(map);
    }

    /** As {@code JedisPort.connect} makes a standalone client with Tollgate's defaults. */
    static RedisClient pingClient(int redisPort) {
        int quarter = (int) (BUDGET.toMillis() / 4);
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(quarter)
                .socketTimeoutMillis(quarter)
                .clientName("tollgate-bench-ping")
                .build();
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(POOL);
        pool.setMaxIdle(POOL);
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(Duration.ofMillis(quarter));
        pool.setTestOnBorrow(false);
        pool.setTestWhileIdle(false);
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        pool.setJmxEnabled(false);
        return RedisClient.builder()
                .hostAndPort(new HostAndPort("127.0.0.1", redisPort))
                .clientConfig(config)
                .poolConfig(pool)
                .build();
    }

    private static void ok(HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain");
        resp.setContentLength(OK.length);
        resp.getOutputStream().write(OK);
    }

    /** The answer and nothing else. */
    static final class Bare extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            ok(resp);
        }
    }

    /** One Redis round trip, then the same answer. */
    static final class Ping extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient RedisClient jedis;

        Ping(RedisClient jedis) {
            this.jedis = jedis;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (!"PONG".equals(jedis.ping())) {
                resp.sendError(500);
                return;
            }
            ok(resp);
        }
    }
}
