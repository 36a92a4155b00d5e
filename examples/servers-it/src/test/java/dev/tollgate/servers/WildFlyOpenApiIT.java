package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 24, item 6: {@code jaxrs-app} on WildFly with {@code standalone-microprofile.xml} (which
 * has MicroProfile OpenAPI; the default {@code standalone.xml} has none), its
 * {@code microprofile-config.properties} registering {@code TollgateOpenApiFilter}: the document at
 * {@code /openapi} gives every {@code @RateLimited} operation a 429 with {@code Retry-After},
 * {@code RateLimit} and {@code RateLimit-Policy} and the problem schema, and an operation no policy
 * covers none.
 */
@ExtendWith(ServerDiagnostics.class)
class WildFlyOpenApiIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void theDocumentShowsThe429OfEveryLimitedOperationAndOnlyThose() throws Exception {
        try (ServerProcess server = Launch.of(new WildFlyMicroProfile(Servers.wildfly()), App.JAXRS_APP.deployment(), "openapi")
                .start()) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.httpPort() + "/openapi?format=JSON")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            System.out.println("[openapi] " + r.body().replaceAll("\\s+", " "));
            Map<String, Object> doc = map(Json.parse(r.body()));
            // WildFly writes the context root in front of each path (its servers entry then is "/")
            Map<String, Object> paths = new LinkedHashMap<>();
            String root = "/" + App.JAXRS_APP.contextRoot();
            map(doc.get("paths")).forEach((k, v) -> paths.put(k.startsWith(root + "/") ? k.substring(root.length()) : k, v));
            assertTrue(paths.containsKey("/api/hello"), "the example's paths: " + paths.keySet());

            // @RateLimited("default"), @RateLimited({"default", "per-route"}), @RateLimited("login")
            for (String[] op : new String[][] {{"/api/hello", "get"}, {"/api/users/{id}", "get"}, {"/api/login", "post"},
                {"/api/partner-stand-in/items/{id}", "get"}}) {
                Map<String, Object> responses = map(map(map(paths.get(op[0])).get(op[1])).get("responses"));
                Map<String, Object> refusal = map(responses.get("429"));
                assertNotNull(refusal, op[0] + " " + op[1] + " has a 429: " + responses.keySet());
                Map<String, Object> headers = map(refusal.get("headers"));
                assertTrue(headers.keySet().containsAll(List.of("Retry-After", "RateLimit", "RateLimit-Policy")),
                        op[0] + ": " + headers.keySet());
                assertEquals("integer", type(map(map(headers.get("Retry-After")).get("schema"))), op[0]);
                Map<String, Object> problem = map(map(map(refusal.get("content")).get("application/problem+json")).get("schema"));
                assertEquals("#/components/schemas/TollgateProblem", problem.get("$ref"), op[0]);
                assertTrue(String.valueOf(refusal.get("description")).startsWith("Too Many Requests"), op[0]);
                assertTrue(responses.containsKey("200") || responses.containsKey("default") || responses.size() > 1,
                        "the operation's own responses stay: " + responses.keySet());
            }
            assertTrue(String.valueOf(map(map(map(map(paths.get("/api/users/{id}")).get("get")).get("responses")).get("429"))
                    .get("description")).contains("policies default, per-route"));

            // no policy covers them: the partner calls are limited outbound only, no @RateLimited on the resource
            for (String[] op : new String[][] {{"/api/partner/items/{id}", "get"}, {"/api/partner/calls", "get"}}) {
                Map<String, Object> operation = map(map(paths.get(op[0])).get(op[1]));
                assertNotNull(operation, op[0] + " is in the document: " + paths.keySet());
                assertFalse(map(operation.get("responses")).containsKey("429"), op[0] + " has no 429");
            }

            Map<String, Object> schema = map(map(map(doc.get("components")).get("schemas")).get("TollgateProblem"));
            assertEquals("object", type(schema));
            Map<String, Object> properties = map(schema.get("properties"));
            assertTrue(properties.keySet().containsAll(List.of("type", "title", "status", "detail", "violated-policies",
                    "retry-after")), properties.keySet().toString());
            assertEquals("array", type(map(properties.get("violated-policies"))));
        }
    }

    /** OpenAPI 3.0 writes {@code "type": "x"}, 3.1 may write {@code "type": ["x"]}. */
    private static String type(Map<String, Object> schema) {
        Object t = schema.get("type");
        return t instanceof List<?> l && l.size() == 1 ? String.valueOf(l.get(0)) : String.valueOf(t);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o == null ? Map.of() : (Map<String, Object>) o;
    }

    /** Enough JSON for a document the server wrote: objects, arrays, strings, numbers, literals. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json j = new Json(text);
            Object v = j.value();
            j.space();
            if (j.i != text.length()) {
                throw new IllegalArgumentException("trailing text at " + j.i);
            }
            return v;
        }

        private void space() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private Object value() {
            space();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                space();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    space();
                    String k = string();
                    space();
                    expect(':');
                    m.put(k, value());
                    space();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect('}');
                        return m;
                    }
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                space();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    space();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect(']');
                        return l;
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            int start = i;
            while (i < s.length() && ",}] \n\r\t".indexOf(s.charAt(i)) < 0) {
                i++;
            }
            String literal = s.substring(start, i);
            return switch (literal) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                case "null" -> null;
                default -> Double.valueOf(literal);
            };
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> sb.append('\n');
                        case 't' -> sb.append('\t');
                        case 'r' -> sb.append('\r');
                        case 'b' -> sb.append('\b');
                        case 'f' -> sb.append('\f');
                        case 'u' -> {
                            sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> sb.append(e);
                    }
                } else {
                    sb.append(c);
                }
            }
            i++;
            return sb.toString();
        }

        private void expect(char c) {
            if (s.charAt(i) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + i + ", found '" + s.charAt(i) + "'");
            }
            i++;
        }
    }
}
