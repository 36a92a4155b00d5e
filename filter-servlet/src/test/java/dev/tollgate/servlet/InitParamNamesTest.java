package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import jakarta.servlet.ServletContext;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A filter's init-params and the application's context-params are sources that list their
 * names, so a mistyped one is warned about like a mistyped environment variable.
 */
class InitParamNamesTest {

    /** A servlet context that holds only context-params and its path (the lookup needs no more of it). */
    static ServletContext context(Map<String, String> contextParams) {
        return (ServletContext) Proxy.newProxyInstance(InitParamNamesTest.class.getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getClassLoader" -> InitParamNamesTest.class.getClassLoader();
                    case "getInitParameter" -> contextParams.get((String) args[0]);
                    case "getInitParameterNames" -> Collections.enumeration(contextParams.keySet());
                    case "getContextPath" -> "/shop"; // the application's name, its namespace
                    case "getServletContextName" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    static List<String> warnings(Map<String, String> initParams, Map<String, String> contextParams) {
        return TollgateConfig.load(TollgateFilter.lookup(context(contextParams), "tollgate", initParams::get,
                initParams::keySet), null).warnings();
    }

    @Test
    void aMistypedInitParamIsWarnedAboutWithTheKeyItMeant() {
        List<String> w = warnings(Map.of("tollgate.policy.default.limits", "5/s", "tollgate.policy.default.limts", "9/s"),
                Map.of());
        assertEquals(1, w.size(), w.toString());
        assertTrue(w.get(0).startsWith("TOLLGATE-004: tollgate.policy.default.limts (from init-param of filter 'tollgate')"), w.get(0));
        assertTrue(w.get(0).contains("did you mean tollgate.policy.default.limits?"), w.get(0));
    }

    @Test
    void aMistypedContextParamIsWarnedAboutToo() {
        List<String> w = warnings(Map.of("tollgate.policy.default.limits", "5/s"), Map.of("tollgate.deny-cach", "false"));
        assertEquals(1, w.size(), w.toString());
        assertTrue(w.get(0).contains("tollgate.deny-cach (from context-param of the web application)"), w.get(0));
    }

    @Test
    void wellSpelledParamsAndOtherSoftwaresParamsAreNot() {
        assertEquals(List.of(), warnings(Map.of("tollgate.policy.default.limits", "5/s"),
                Map.of("tollgate.deny-cache", "false", "org.apache.myfaces.PROJECT_STAGE", "Development")));
    }
}
