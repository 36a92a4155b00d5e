package dev.tollgate.bench.scenario;

import dev.tollgate.servlet.TollgateFilter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The scenario's application server, run by {@link ScenarioRun} in its own JVM so that its CPU
 * can be measured apart from the load generator's: an embedded Tomcat 11 with {@link WorkServlet}
 * at {@code /api/work} and, when asked, {@link TollgateFilter} over {@code /api/*} with a
 * {@code 10/s burst 20} limit per {@code X-Client-Id} header, on a real Redis.
 *
 * <p>Arguments: {@code port baseDir tollgate|plain redisUri slots holdMicros cpuMicros [poolSize]}
 * (no pool size: Tollgate's default). Prints
 * {@code READY} when it serves, and stops when its standard input closes.
 */
public final class AppServer {

    private AppServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path base = Path.of(args[1]);
        boolean tollgate = args[2].equals("tollgate");
        String redisUri = args[3];
        int slots = Integer.parseInt(args[4]);
        long holdMicros = Long.parseLong(args[5]);
        long cpuMicros = Long.parseLong(args[6]);
        String poolSize = args.length > 7 ? args[7] : null;

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
        Tomcat.addServlet(ctx, "work", new WorkServlet(slots, holdMicros, cpuMicros));
        ctx.addServletMappingDecoded("/api/work", "work");
        if (tollgate) {
            FilterDef def = new FilterDef();
            def.setFilterName("tollgate");
            def.setFilterClass(TollgateFilter.class.getName());
            def.setAsyncSupported("true");
            def.addInitParameter("tollgate.policy.default.limits", "10/s burst 20");
            def.addInitParameter("tollgate.policy.default.key", "header:X-Client-Id");
            def.addInitParameter("tollgate.redis.uri", redisUri);
            if (poolSize != null) {
                def.addInitParameter("tollgate.redis.pool-size", poolSize);
            }
            ctx.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("tollgate");
            map.addURLPattern("/api/*");
            ctx.addFilterMap(map);
        }
        tomcat.start();
        System.out.println("READY " + port);
        System.out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (in.readLine() != null) {
                // wait for the harness to close our input
            }
        }
        tomcat.stop();
        tomcat.destroy();
        System.exit(0);
    }
}
