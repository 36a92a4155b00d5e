package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.tollgate.testing.DropInJars;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JAX-RS drop-in jar carries Tollgate and its dependencies, relocated; it says what it bundles and
 * under which licences, it is a named module, and Jedis inside it logs to the server's log.
 */
class DropInJarIT {

    @Test
    void everyDependencyIsRelocatedUnderTollgatesPackage() throws Exception {
        Path jar = DropInJars.find("tollgate-filter-jaxrs");
        assertEquals(List.of(), DropInJars.classesOutsideTollgate(jar));
        assertTrue(DropInJars.has(jar, "dev/tollgate/shaded/redis/clients/jedis/RedisClient.class"));
        assertTrue(DropInJars.has(jar, "dev/tollgate/jaxrs/TollgateFeature.class"));
        assertTrue(DropInJars.has(jar, "dev/tollgate/internal/redis/bucket.lua"));
    }

    @Test
    void everyBundledArtifactIsNamedAndLicensedInside() throws Exception {
        assertEquals(List.of(), DropInJars.supplyChainProblems(DropInJars.find("tollgate-filter-jaxrs")));
    }

    @Test
    void itsSbomNamesWhatItHoldsAndNothingElse() throws Exception {
        Path jar = DropInJars.find("tollgate-filter-jaxrs");
        for (String format : List.of("xml", "json")) {
            Path sbom = DropInJars.dropInSbom(format);
            assumeFalse(sbom == null && DropInJars.builtOffline(), "Maven skips cyclonedx:makeBom in an offline build: no SBOM to check");
            assertNotNull(sbom, "no target/bom-all." + format + ": the build made no SBOM of the drop-in jar");
            assertEquals(List.of(), DropInJars.sbomProblems(jar, sbom));
        }
    }

    @Test
    void bothJarsCarryTheAutomaticModuleName() throws Exception {
        Path jar = DropInJars.find("tollgate-filter-jaxrs");
        assertEquals("dev.tollgate.jaxrs", DropInJars.automaticModuleName(jar));
        ModuleDescriptor onModulePath = DropInJars.moduleOnModulePath(jar);
        assertEquals("dev.tollgate.jaxrs", onModulePath.name());
        assertTrue(onModulePath.isAutomatic());
        assertEquals("dev.tollgate.jaxrs", DropInJars.automaticModuleName(DropInJars.findThin("tollgate-filter-jaxrs")), "the jar without dependencies");
    }

    @Test
    void jedisLogsToJavaUtilLoggingWithoutSlf4jWarnings() throws Exception {
        DropInJars.JedisLog log = DropInJars.jedisLogThrough(DropInJars.find("tollgate-filter-jaxrs"));
        assertEquals(List.of(), log.slf4jLines(), "SLF4J fell back to its NOP logger");
        assertEquals("dev.tollgate.shaded.slf4j.impl.JDK14LoggerFactory", log.loggerFactory());
        assertTrue(log.julRecords().stream().anyMatch(r -> r.startsWith(
                "INFO dev.tollgate.shaded.redis.clients.jedis.JedisSentinelPool: Trying to find master")), log.julRecords()::toString);
    }
}
