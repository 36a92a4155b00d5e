package dev.tollgate.jaxrs.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, item 6, the parts of {@link TollgateOpenApiFilter} that need no OpenAPI
 * implementation: the index the annotation processor wrote while this module's tests compiled,
 * the routes read back from it as OpenAPI names them, and the policies {@code match} gives an
 * operation in global mode. The document itself is read from WildFly in servers-it ({@code OpenApiContract}).
 */
class RoutesTest {

    @Test
    void theProcessorListedTheRateLimitedClassesAndTheApplications() throws IOException {
        Path index = Path.of("target", "test-classes", TollgateOpenApiFilter.INDEX);
        assertTrue(Files.exists(index), "javac ran RateLimitedIndexer on the test sources: " + index.toAbsolutePath());
        List<String> lines = Files.readAllLines(index);
        assertTrue(lines.contains("application dev.tollgate.jaxrs.openapi.IndexedResources$Api"), lines.toString());
        assertTrue(lines.contains("resource dev.tollgate.jaxrs.openapi.IndexedResources$Orders"), lines.toString());
        assertTrue(lines.contains("resource dev.tollgate.jaxrs.openapi.IndexedResources$Exports"), lines.toString());
        assertTrue(lines.contains("resource dev.tollgate.jaxrs.openapi.IndexedResources$Sub"), lines.toString());
    }

    @Test
    void routesAreReadBackAsTheDocumentNamesThem() throws IOException {
        Routes routes = Routes.read(RoutesTest.class.getClassLoader());
        assertTrue(routes.applicationPaths().contains("/v1"), routes.applicationPaths().toString());
        assertEquals(List.of("default", "per-route"), routes.limitedAt("GET", "/v1/orders/{id}"));
        assertEquals(List.of("writes"), routes.limitedAt("POST", "/v1/orders"));
        assertNull(routes.limitedAt("GET", "/v1/orders"), "not annotated: no policy");
        assertEquals(List.of("exports"), routes.limitedAt("GET", "/v1/exports"), "the class's annotation");
        assertEquals(List.of("latest"), routes.limitedAt("GET", "/v1/exports/latest"), "the method's wins");
        assertNull(routes.limitedAt("POST", "/v1/exports"));
        assertNull(routes.limitedAt("GET", "/v2/exports"));
        assertTrue(routes.limited().stream().noneMatch(r -> r.policies().contains("sub")), "a sub-resource has no path of its own");
        assertEquals(List.of("default", "per-route"), routes.limitedAt("GET", "/shop/v1/orders/{id}"), "after a context root");
        assertNull(routes.limitedAt("GET", "/shop/orders/{id}"), "without the application path: another path");
        assertEquals("/orders/{id}", routes.insideApplication("/v1/orders/{id}"));
        assertEquals("/orders/{id}", routes.insideApplication("/shop/v1/orders/{id}"));
        assertEquals("/", routes.insideApplication("/v1"));
        assertEquals("/v2/x", routes.insideApplication("/v2/x"), "/v2 is no application path");
    }

    @Test
    void templatesAreNormalizedAsOpenApiWritesThem() {
        assertEquals("/users/{id}", Routes.normalize("users/{ id : [0-9]{1,3} }/"));
        assertEquals("/a/b", Routes.normalize("//a///b/"));
        assertEquals("", Routes.normalize("/"));
        assertEquals("/{x}", Routes.normalize("{x}"));
        assertEquals("/file{ext}", Routes.normalize("/file{ext: \\.[a-z]+}"));
    }

    @Test
    void inGlobalModeAPolicysMatchCoversTheTemplate() {
        TollgateConfig c = TestConfigs.of("tollgate.jaxrs.global", "true",
                "tollgate.policies", "default,login,exports,partner",
                "tollgate.policy.default.limits", "10/s",
                "tollgate.policy.login.limits", "5/min",
                "tollgate.policy.login.match", "POST /login",
                "tollgate.policy.exports.limits", "3/h",
                "tollgate.policy.partner.limits", "5/min",
                "tollgate.policy.partner.match", "OUTBOUND /");
        Set<String> named = Set.of("exports");
        assertEquals(List.of("default", "login"), TollgateOpenApiFilter.byMatch(c, named, "POST", "/login"));
        assertEquals(List.of("default"), TollgateOpenApiFilter.byMatch(c, named, "GET", "/users/{id}"),
                "exports is named in code and has no match; partner limits outbound calls only");
        assertEquals(List.of("default", "exports"), TollgateOpenApiFilter.byMatch(c, Set.of(), "GET", "/x"));
        TollgateConfig notGlobal = TestConfigs.of("tollgate.policy.default.limits", "10/s");
        assertEquals(List.of(), TollgateOpenApiFilter.byMatch(notGlobal, named, "GET", "/x"), "only annotations outside global mode");
        assertEquals(List.of(), TollgateOpenApiFilter.byMatch(null, named, "GET", "/x"), "no configuration: annotations only");
    }
}
