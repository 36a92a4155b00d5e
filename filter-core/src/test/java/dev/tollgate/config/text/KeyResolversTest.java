package dev.tollgate.config.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.spi.KeyResolver;
import dev.tollgate.spi.KeyResolverProvider;
import dev.tollgate.testing.TestRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyResolversTest {

    static final Map<String, KeyResolverProvider> PROVIDERS = KeyResolvers.providers(KeyResolversTest.class.getClassLoader());

    static KeyResolver key(String text) {
        return KeyResolvers.parse(text, PROVIDERS);
    }

    @Test
    void eachBuiltInLabelsItsValue() {
        TestRequest r = TestRequest.get("/users/7").route("/users/{id}").from("203.0.113.7")
                .header("X-Api-Key", " k-123 ").user("alice");
        assertEquals("ip=203.0.113.7", key("ip").resolve(r));
        assertEquals("header.x-api-key=k-123", key("header:X-Api-Key").resolve(r));
        assertEquals("principal=alice", key("principal").resolve(r));
        assertEquals("route=/users/{id}", key("route").resolve(r));
        assertEquals("principal=alice+route=/users/{id}", key("principal+route").resolve(r));
    }

    @Test
    void theFirstCompleteAlternativeWins() {
        KeyResolver k = key("principal+route, header:X-Api-Key, ip");
        assertEquals("ip=192.0.2.1", k.resolve(TestRequest.get("/")));
        assertEquals("header.x-api-key=abc", k.resolve(TestRequest.get("/").header("x-api-key", "abc")));
        assertEquals("principal=bob+route=/r", k.resolve(TestRequest.get("/").route("/r").user("bob").header("x-api-key", "abc")));
    }

    @Test
    void anAbsentOrEmptyValueIsNoKey() {
        assertNull(key("principal").resolve(TestRequest.get("/")));
        assertNull(key("header:X-Api-Key").resolve(TestRequest.get("/").header("X-Api-Key", "   ")));
        assertNull(key("principal+ip").resolve(TestRequest.get("/")));
    }

    @Test
    void bracketsAroundAnIpv6PeerAreDropped() {
        assertEquals("ip=2001:db8::1", key("ip").resolve(TestRequest.get("/").from("[2001:DB8::1]")));
    }

    @Test
    void badKeysAreRefusedWithWhatIsAccepted() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> key("cookie:session"));
        assertTrue(e.getMessage().contains("unknown key resolver 'cookie'"), e.getMessage());
        assertTrue(e.getMessage().contains("known: ip, principal, route, header"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> key("ip:1"));
        assertThrows(IllegalArgumentException.class, () -> key("header:Bad Name"));
        assertThrows(IllegalArgumentException.class, () -> key("ip,,principal"));
        assertThrows(IllegalArgumentException.class, () -> key(""));
    }

    @Test
    void aProviderThatCannotBeLoadedIsSkippedNotFatal() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tollgate-spi-");
        java.nio.file.Path services = dir.resolve("META-INF/services");
        java.nio.file.Files.createDirectories(services);
        java.nio.file.Files.writeString(services.resolve(KeyResolverProvider.class.getName()), "com.example.Missing\n");
        try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {dir.toUri().toURL()},
                getClass().getClassLoader())) {
            Map<String, KeyResolverProvider> found = KeyResolvers.providers(loader);
            assertTrue(found.containsKey("ip") && found.containsKey("tenant"), found.keySet().toString());
        }
    }

    @Test
    void withoutAClassLoaderOnlyTheBuiltInsAreThere() {
        assertEquals(java.util.Set.of("ip", "principal", "route", "header"), KeyResolvers.providers(null).keySet());
    }

    @Test
    void principalKeysAreMarkedForTheAuthenticatedPhase() {
        assertTrue(key("principal").usesPrincipal());
        assertTrue(key("header:X, principal+route").usesPrincipal());
        assertFalse(key("ip, header:X+route").usesPrincipal());
    }

    @Test
    void joinedKeysCannotBeForgedWithSeparators() {
        KeyResolver k = key("principal+route");
        String one = k.resolve(TestRequest.get("/").user("a+route=b").route("c"));
        String two = k.resolve(TestRequest.get("/").user("a").route("b+route=c"));
        assertTrue(!one.equals(two), one + " vs " + two);
        assertEquals("principal=a%2Broute%3Db+route=c", one);
    }
}
