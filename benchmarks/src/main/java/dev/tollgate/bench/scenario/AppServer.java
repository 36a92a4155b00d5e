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
 * {@code 10/s burst 20} limit per {@code X-Client-Id} header, on a real Redis; or, as the floor a
 * refusal inside Tomcat cannot go below, {@link StaticRefusalFilter} in its place.
 *
 * <p>Arguments: {@code port baseDir tollgate|plain|static redisUri slots holdMicros cpuMicros [poolSize]}
 * (no pool size: Tollgate's default); {@code -Dtollgate.bench.virtual-threads=true} serves requests
 * on virtual threads (Tomcat's {@code useVirtualThreads}, Java 21 and later). Prints
 * {@code READY} when it serves, and stops when its standard input closes.
 */
public final class AppServer {

    private AppServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path base = Path.of(args[1]);
        String mode = args[2];
        boolean tollgate = mode.equals("tollgate");
        boolean virtual = Boolean.getBoolean("tollgate.bench.virtual-threads");
        if (virtual && Runtime.version().feature() < 21) {
            System.out.println("virtual threads need Java 21 or later; this application runs on Java "
                    + Runtime.version() + " (give the scenario app-java=<a JDK 21+ home>)");
            System.exit(2);
        }
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
        if (virtual) {
            // Tomcat 11 runs each request on a virtual thread of its own; maxThreads no longer applies
            if (!connector.setProperty("useVirtualThreads", "true")) {
                throw new IllegalStateException("this Tomcat has no useVirtualThreads");
            }
        }
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
        } else if (mode.equals("static")) {
            FilterDef def = new FilterDef();
            def.setFilterName("static-refusal");
            def.setFilter(new StaticRefusalFilter());
            def.setFilterClass(StaticRefusalFilter.class.getName());
            def.setAsyncSupported("true");
            ctx.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("static-refusal");
            map.addURLPattern("/api/*");
            ctx.addFilterMap(map);
        }
        tomcat.start();
        System.out.println("READY " + port + (virtual ? " virtual-threads" : "") + " java " + Runtime.version());
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
