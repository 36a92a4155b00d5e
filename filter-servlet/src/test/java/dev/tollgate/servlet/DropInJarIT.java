package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.tollgate.testing.DropInJars;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * The drop-in jar ({@code tollgate-filter-servlet-*-all.jar}) is everything a user who copies jars
 * needs: alone in WEB-INF/lib of a real Tomcat web application it limits over Redis. It says what it
 * bundles and under which licences, it is a named module, and Jedis inside it logs to the server's log.
 */
@WithRedis
class DropInJarIT {

    static Path dropInJar() throws Exception {
        return DropInJars.find("tollgate-filter-servlet");
    }

    @Test
    void everyDependencyIsRelocatedUnderTollgatesPackage() throws Exception {
        Path jar = dropInJar();
        assertEquals(List.of(), DropInJars.classesOutsideTollgate(jar), "classes outside dev/tollgate could clash with the application's");
        assertTrue(DropInJars.has(jar, "dev/tollgate/shaded/redis/clients/jedis/RedisClient.class"), "Jedis is inside");
        assertTrue(DropInJars.has(jar, "dev/tollgate/shaded/pool2/impl/GenericObjectPool.class"), "commons-pool is inside");
        assertTrue(DropInJars.has(jar, "dev/tollgate/internal/redis/bucket.lua"), "the script is inside");
        assertTrue(DropInJars.has(jar, "dev/tollgate/servlet/TollgateFilter.class"));
    }

    @Test
    void aBadValueInWebXmlStopsTheDeploymentBeforeAnyRequest(RedisEndpoint redis) throws Exception {
        serve(webapp(redis, "10/fortnight"), (tomcat, ctx) ->
                assertTrue(ctx.getState() != LifecycleState.STARTED, "the application must not start: " + ctx.getState()));
    }

    @Test
    void aWebApplicationWithOnlyTheDropInJarIsLimitedOverRedis(RedisEndpoint redis) throws Exception {
        serve(webapp(redis, "3/min"), (tomcat, ctx) -> {
            assertEquals(LifecycleState.STARTED, ctx.getState());
            HttpClient http = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/hello.txt");
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                statuses.add(http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            }
            // 503 would mean the shaded Jedis could not talk to Redis (failure mode closed)
            assertEquals(List.of(200, 200, 200, 429, 429), statuses);
            assertTrue(ctx.getLoader().getClassLoader().loadClass("dev.tollgate.servlet.TollgateFilter")
                    .getProtectionDomain().getCodeSource().getLocation().toString().contains("tollgate-filter-servlet-all.jar"),
                    "the filter came from the drop-in jar");
        });
    }

    @Test
    void everyBundledArtifactIsNamedAndLicensedInside() throws Exception {
        assertEquals(List.of(), DropInJars.supplyChainProblems(dropInJar()));
    }

    @Test
    void itsSbomNamesWhatItHoldsAndNothingElse() throws Exception {
        Path jar = dropInJar();
        for (String format : List.of("xml", "json")) {
            Path sbom = DropInJars.dropInSbom(format);
            assumeFalse(sbom == null && DropInJars.builtOffline(), "Maven skips cyclonedx:makeBom in an offline build: no SBOM to check");
            assertNotNull(sbom, "no target/bom-all." + format + ": the build made no SBOM of the drop-in jar");
            assertEquals(List.of(), DropInJars.sbomProblems(jar, sbom));
        }
    }

    @Test
    void bothJarsCarryTheAutomaticModuleName() throws Exception {
        Path jar = dropInJar();
        assertEquals("dev.tollgate.servlet", DropInJars.automaticModuleName(jar));
        ModuleDescriptor onModulePath = DropInJars.moduleOnModulePath(jar);
        assertEquals("dev.tollgate.servlet", onModulePath.name());
        assertTrue(onModulePath.isAutomatic());
        assertEquals("dev.tollgate.servlet", DropInJars.automaticModuleName(DropInJars.findThin("tollgate-filter-servlet")), "the jar without dependencies");
    }

    @Test
    void jedisLogsToJavaUtilLoggingWithoutSlf4jWarnings() throws Exception {
        DropInJars.JedisLog log = DropInJars.jedisLogThrough(dropInJar());
        assertEquals(List.of(), log.slf4jLines(), "SLF4J fell back to its NOP logger");
        assertEquals("dev.tollgate.shaded.slf4j.impl.JDK14LoggerFactory", log.loggerFactory());
        assertTrue(log.julRecords().stream().anyMatch(r -> r.startsWith(
                "INFO dev.tollgate.shaded.redis.clients.jedis.JedisSentinelPool: Trying to find master")), log.julRecords()::toString);
    }

    /** What a test checks on a started Tomcat and its one application. */
    private interface Check {
        void on(Tomcat tomcat, Context ctx) throws Exception;
    }

    /** Starts {@code app} alone on an embedded Tomcat, runs {@code check}, then stops and deletes everything. */
    private static void serve(Path app, Check check) throws Exception {
        Path base = Files.createTempDirectory("tollgate-dropin-base-");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        tomcat.setAddDefaultWebXmlToWebapp(false);
        Context ctx = tomcat.addWebapp("", app.toString());
        tomcat.start();
        try {
            check.on(tomcat, ctx);
        } finally {
            tomcat.stop();
            tomcat.destroy();
            delete(app);
            delete(base);
        }
    }

    /** A web application with only the drop-in jar, a static file, and the filter over everything. */
    private static Path webapp(RedisEndpoint redis, String limits) throws Exception {
        Path app = Files.createTempDirectory("tollgate-dropin-");
        Files.createDirectories(app.resolve("WEB-INF/lib"));
        Files.copy(dropInJar(), app.resolve("WEB-INF/lib/tollgate-filter-servlet-all.jar"), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(app.resolve("hello.txt"), "hello");
        Files.writeString(app.resolve("WEB-INF/web.xml"), """
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0" metadata-complete="true">
                  <servlet>
                    <servlet-name>default</servlet-name>
                    <servlet-class>org.apache.catalina.servlets.DefaultServlet</servlet-class>
                  </servlet>
                  <servlet-mapping><servlet-name>default</servlet-name><url-pattern>/</url-pattern></servlet-mapping>
                  <filter>
                    <filter-name>tollgate</filter-name>
                    <filter-class>dev.tollgate.servlet.TollgateFilter</filter-class>
                    <init-param><param-name>tollgate.policy.default.limits</param-name><param-value>%s</param-value></init-param>
                    <init-param><param-name>tollgate.redis.uri</param-name><param-value>%s</param-value></init-param>
                    <init-param><param-name>tollgate.redis.timeout</param-name><param-value>2s</param-value></init-param>
                    <init-param><param-name>tollgate.redis.failure-mode</param-name><param-value>closed</param-value></init-param>
                    <init-param><param-name>tollgate.redis.key-prefix</param-name><param-value>dropin-%s:</param-value></init-param>
                  </filter>
                  <filter-mapping><filter-name>tollgate</filter-name><url-pattern>/*</url-pattern></filter-mapping>
                </web-app>
                """.formatted(limits, redis.uri(), UUID.randomUUID()));
        return app;
    }

    private static void delete(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }
}
