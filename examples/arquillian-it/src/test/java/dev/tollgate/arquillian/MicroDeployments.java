package dev.tollgate.arquillian;

import dev.tollgate.testing.TestRedis;
import java.io.File;
import java.util.Arrays;
import java.util.UUID;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The pieces every micro-deployment shares, built on the client side (never inside a server):
 * the Tollgate jars and their runtime dependencies in {@code WEB-INF/lib}, and a
 * {@code microprofile-config.properties} that points at this JVM's test Redis
 * ({@link TestRedis#shared()}, started on a free port and stopped when the JVM ends).
 */
final class MicroDeployments {

    /** The policy the tiny resources are limited by. */
    static final String POLICY = "tight";

    /** Its limit, per hour (w=3600): 20 minutes per token, so that no token comes back while a test runs, however slow the machine. */
    static final int BURST = 3;

    private MicroDeployments() {
    }

    /** A WAR named {@code name} with the Tollgate libraries and the configuration, and nothing else yet. */
    static WebArchive war(String name) {
        return ShrinkWrap.create(WebArchive.class, name + ".war")
                .addAsLibraries(tollgateLibraries())
                .addAsResource(new StringAsset(configuration()), "META-INF/microprofile-config.properties");
    }

    /**
     * Each deployment gets a key prefix of its own, so that buckets left by an earlier deployment
     * (or run, with {@code TOLLGATE_TEST_REDIS_URI}) never count against it. Redis gets a time
     * budget a loaded build machine keeps, and a Redis failure answers 503 ({@code closed}): with
     * the default {@code local} a slow call would be decided on the server's memory, whose bucket
     * is full, and the count would jump back silently.
     */
    private static String configuration() {
        return String.join("\n",
                "tollgate.redis.uri=" + TestRedis.shared().uri(),
                "tollgate.redis.timeout=5s",
                "tollgate.redis.failure-mode=closed",
                "tollgate.redis.key-prefix=arq-" + UUID.randomUUID() + ":",
                "tollgate.policies=" + POLICY,
                "tollgate.policy." + POLICY + ".limits=" + BURST + "/h",
                "");
    }

    /** The module's runtime class path as the build copied it (pom: war-lib). */
    private static File[] tollgateLibraries() {
        String dir = System.getProperty("tg.war.lib.dir");
        if (dir == null || dir.isBlank()) {
            throw new IllegalStateException("No -Dtg.war.lib.dir: run these tests through Maven (failsafe), which copies the WAR's libraries there");
        }
        File[] jars = new File(dir).listFiles((d, n) -> n.endsWith(".jar"));
        if (jars == null || Arrays.stream(jars).noneMatch(j -> j.getName().startsWith("tollgate-filter-core"))) {
            throw new IllegalStateException("No Tollgate jars in " + dir + "; the build copies them there in pre-integration-test");
        }
        return jars;
    }
}
