package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 29: where an application's namespace comes from, and what a container's name becomes. */
class NamespaceConfigTest {

    private static final String NS = Settings.NAMESPACE.name();
    private static final String LIMIT_KEY = "tollgate.policy.default.limits";
    private static final Map<String, String> LIMITS = Map.of(LIMIT_KEY, "1/s");

    @Test
    void theContextPathNamesTheApplicationAndAtTheRootItsDisplayName() {
        assertEquals("/shop", ConfigSources.application(null, "/shop", "Shop").get(NS));
        assertEquals("the application's context path", ConfigSources.application(null, "/shop", "Shop").describe(NS));
        assertEquals("Billing", ConfigSources.application(null, "", "Billing").get(NS), "at the root path: the display name");
        assertEquals("/", ConfigSources.application(null, "", null).get(NS));
        assertEquals("/", ConfigSources.application(null, "", "  ").get(NS));
        assertNull(ConfigSources.application(null, "/shop", "Shop").get("tollgate.redis.key-prefix"), "it sets nothing else");
        assertEquals("bad?name", ConfigSources.application(null, "", "bad\nname").get(NS), "no control character");
        assertEquals(256, ConfigSources.application(null, "/" + "x".repeat(1000), null).get(NS).length(), "bounded");
    }

    @Test
    void theSettingComesFirstThenTheContainerThenTheDefault() {
        ClassLoader app = new URLClassLoader(new URL[0], getClass().getClassLoader());
        ConfigSource container = ConfigSources.application(app, "/shop", null);
        TollgateConfig fromContainer = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("map", LIMITS), container), null);
        assertEquals(new ConfigValue(NS, "/shop", "the application's context path"), fromContainer.namespace());
        TollgateConfig set = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("map", Map.of(NS, " storefront ", LIMIT_KEY, "1/s")), container),
                null);
        assertEquals(new ConfigValue(NS, "storefront", "map"), set.namespace());
        TollgateConfig none = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("map", LIMITS)), null);
        assertEquals(TollgateConfig.DEFAULT_NAMESPACE, none.namespace());
        assertEquals("default", none.namespace().value());
    }

    @Test
    void aDeclaredNameIsFoundByTheApplicationsClassLoaderEvenWhenDeclaredLater() {
        ClassLoader app = new URLClassLoader(new URL[0], getClass().getClassLoader());
        ClassLoader child = new URLClassLoader(new URL[0], app);
        ConfigSource cdi = ConfigSources.application(child); // made before the container names the application
        assertNull(cdi.get(NS));
        ConfigSources.application(app, "/examples", "Examples");
        assertEquals("/examples", cdi.get(NS), "the CDI interceptor's limiter gets the filters' namespace");
        assertEquals("the application's context path", cdi.describe(NS));
        assertNull(ConfigSources.application(getClass().getClassLoader()).get(NS), "another application's is not found");
    }

    @Test
    void aNamespaceWithAControlCharacterStopsTheStart() {
        ConfigException e = assertThrows(ConfigException.class, () -> TollgateConfig.load(
                ConfigLookup.of(ConfigSources.of("map", Map.of(NS, "a\u0007b", LIMIT_KEY, "1/s"))), null));
        assertTrue(e.getMessage().contains(NS) && e.getMessage().contains("control character"), e.getMessage());
    }
}
