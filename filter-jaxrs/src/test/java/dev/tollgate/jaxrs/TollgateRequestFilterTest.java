package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.HttpAnswer;
import dev.tollgate.RateLimiter;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The two request filters without a runtime, over the in-memory store: which phase decides a
 * policy is read per request, and a policy is decided once per request whatever a reload between
 * the two phases does to its key. The limit (5 an hour) does not refill while the test runs.
 */
class TollgateRequestFilterTest {

    private final Map<String, String> settings = new ConcurrentHashMap<>(Map.of(
            "tollgate.policies", "login",
            "tollgate.policy.login.limits", "5/h"));

    private TollgateConfig load() {
        return TestConfigs.of(settings);
    }

    /** A POST to /login from 127.0.0.1 without a principal, as the filters see it: its properties in a map. */
    private static ContainerRequestContext request(Map<String, Object> properties) {
        UriInfo uri = (UriInfo) Proxy.newProxyInstance(UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getPath")) {
                        return "login";
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        MultivaluedHashMap<String, String> headers = new MultivaluedHashMap<>();
        properties.put(RemoteAddressFilter.PROPERTY, "127.0.0.1");
        return (ContainerRequestContext) Proxy.newProxyInstance(ContainerRequestContext.class.getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> properties.get((String) args[0]);
                    case "setProperty" -> properties.put((String) args[0], args[1]);
                    case "removeProperty" -> properties.remove((String) args[0]);
                    case "getUriInfo" -> uri;
                    case "getMethod" -> "POST";
                    case "getHeaders" -> headers;
                    case "getHeaderString" -> null;
                    case "getSecurityContext" -> null;
                    case "abortWith" -> properties.put("aborted", args[0]);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** The {@code RateLimit} fields the filters left for the response, one per decision of the policy. */
    @SuppressWarnings("unchecked")
    private static List<String> rateLimitFields(Map<String, Object> properties) {
        List<String> out = new ArrayList<>();
        Object headers = properties.get(TollgateRequestFilter.HEADERS);
        if (headers != null) {
            for (HttpAnswer.Header h : (List<HttpAnswer.Header>) headers) {
                if (h.name().equals("RateLimit")) {
                    out.add(h.value());
                }
            }
        }
        return out;
    }

    @Test
    void aPolicyIsDecidedOncePerRequestWhateverAReloadBetweenThePhasesDoesToItsKey() {
        try (RateLimiter limiter = RateLimiter.create(load(), "test", this::load)) {
            var before = new TollgateRequestFilter.BeforeAuthentication(limiter, List.of("login"), "/login", 0);
            var after = new TollgateRequestFilter.AfterAuthentication(limiter, "/login", 0);
            int remaining = 5;
            // without a principal, a principal key falls back to the address: one bucket for both kinds
            for (String first : List.of("ip", "principal")) {
                for (String second : List.of("ip", "principal")) {
                    settings.put("tollgate.policy.login.key", first);
                    limiter.reload();
                    Map<String, Object> properties = new HashMap<>();
                    ContainerRequestContext request = request(properties);
                    before.filter(request);
                    assertEquals(first.equals("ip") ? 1 : 0, rateLimitFields(properties).size(),
                            "keyed by " + first + " when the request came in: decided before authentication or left for after");
                    settings.put("tollgate.policy.login.key", second);
                    limiter.reload();
                    after.filter(request);
                    remaining--;
                    assertEquals(List.of("\"login\";r=" + remaining), rateLimitFields(properties).stream()
                            .map(f -> f.substring(0, f.indexOf(";t="))).toList(),
                            first + " then " + second + ": decided once");
                    assertTrue(!properties.containsKey("aborted"));
                }
            }
        }
    }

    @Test
    void enabledAndTheKeyAreReadPerRequest() {
        settings.put("tollgate.enabled", "false");
        try (RateLimiter limiter = RateLimiter.create(load(), "test", this::load)) {
            var before = new TollgateRequestFilter.BeforeAuthentication(limiter, List.of("login"), "/login", 0);
            var after = new TollgateRequestFilter.AfterAuthentication(limiter, "/login", 0);
            Map<String, Object> off = new HashMap<>();
            before.filter(request(off));
            after.filter(request(off));
            assertEquals(List.of(), rateLimitFields(off), "off");
            settings.put("tollgate.enabled", "true");
            settings.put("tollgate.policy.login.key", "principal");
            limiter.reload();
            Map<String, Object> on = new HashMap<>();
            ContainerRequestContext request = request(on);
            before.filter(request);
            assertTrue(on.containsKey(TollgateRequestFilter.AFTER_AUTHENTICATION), "left for after authentication");
            after.filter(request);
            assertEquals(1, rateLimitFields(on).size(), "on, after authentication");
            assertTrue(!on.containsKey(TollgateRequestFilter.AFTER_AUTHENTICATION), "taken by the second phase");
        }
    }
}
