package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.DropInJars;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JAX-RS drop-in jar carries Tollgate and its dependencies, relocated. */
class DropInJarIT {

    @Test
    void everyDependencyIsRelocatedUnderTollgatesPackage() throws Exception {
        Path jar = DropInJars.find("tollgate-filter-jaxrs");
        assertEquals(List.of(), DropInJars.classesOutsideTollgate(jar));
        assertTrue(DropInJars.has(jar, "dev/tollgate/shaded/redis/clients/jedis/RedisClient.class"));
        assertTrue(DropInJars.has(jar, "dev/tollgate/jaxrs/TollgateFeature.class"));
        assertTrue(DropInJars.has(jar, "dev/tollgate/internal/bucket.lua"));
    }
}
