package dev.tollgate.jaxrs.openapi;

import dev.tollgate.jaxrs.RateLimited;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The application's {@code @RateLimited} resource methods as OpenAPI names them (method and
 * path template), and its application paths, read from the classes {@link RateLimitedIndexer}
 * listed. Immutable.
 *
 * @param limited          each {@code @RateLimited} resource method
 * @param applicationPaths the {@code @ApplicationPath}s, normalized ({@code ""} for the root), never empty
 */
record Routes(List<Route> limited, List<String> applicationPaths) {

    /** One resource method: {@code GET}, {@code /users/{id}} (without the application path), its policies. */
    record Route(String method, String path, List<String> policies) {
    }

    /** Reads the index of every jar and class directory of {@code loader}; classes that cannot be loaded are left out. */
    static Routes read(ClassLoader loader) throws IOException {
        Set<String> resources = new LinkedHashSet<>();
        Set<String> applications = new LinkedHashSet<>();
        Enumeration<URL> indexes = loader.getResources(OpenApiIndex.INDEX);
        while (indexes.hasMoreElements()) {
            URL url = indexes.nextElement();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(url.openStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    String l = line.strip();
                    if (l.startsWith(OpenApiIndex.RESOURCE + " ")) {
                        resources.add(l.substring(OpenApiIndex.RESOURCE.length() + 1).strip());
                    } else if (l.startsWith(OpenApiIndex.APPLICATION + " ")) {
                        applications.add(l.substring(OpenApiIndex.APPLICATION.length() + 1).strip());
                    }
                }
            }
        }
        List<Route> limited = new ArrayList<>();
        for (String name : resources) {
            Class<?> type = load(name, loader);
            if (type != null) {
                limited.addAll(of(type));
            }
        }
        Set<String> paths = new LinkedHashSet<>();
        for (String name : applications) {
            Class<?> type = load(name, loader);
            ApplicationPath a = type == null ? null : type.getAnnotation(ApplicationPath.class);
            if (a != null) {
                String p = normalize(a.value());
                paths.add(p.endsWith("/*") ? p.substring(0, p.length() - 2) : p);
            }
        }
        if (paths.isEmpty()) {
            paths.add("");
        }
        return new Routes(List.copyOf(limited), List.copyOf(paths));
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /** The {@code @RateLimited} resource methods of a root resource class (one with {@code @Path}). */
    static List<Route> of(Class<?> type) {
        Path root = type.getAnnotation(Path.class);
        if (root == null) {
            return List.of(); // a sub-resource: its path is its locator's
        }
        RateLimited onType = type.getAnnotation(RateLimited.class);
        List<Route> out = new ArrayList<>();
        for (Method m : type.getMethods()) {
            String http = httpMethod(m);
            RateLimited r = m.getAnnotation(RateLimited.class);
            r = r != null ? r : onType;
            if (http == null || r == null) {
                continue;
            }
            Path p = m.getAnnotation(Path.class);
            out.add(new Route(http, normalize(root.value() + "/" + (p == null ? "" : p.value())), List.of(r.value())));
        }
        return out;
    }

    private static String httpMethod(Method m) {
        for (Annotation a : m.getAnnotations()) {
            HttpMethod h = a.annotationType().getAnnotation(HttpMethod.class);
            if (h != null) {
                return h.value().toUpperCase(Locale.ROOT);
            }
        }
        return null;
    }

    /**
     * The policies {@code @RateLimited} gives an operation, or {@code null}; {@code path} as the
     * document has it: from the application path on, or after a context root (WildFly writes it in
     * front once the filters have run; a server may do so before).
     */
    List<String> limitedAt(String method, String path) {
        String p = normalize(path);
        List<String> suffixed = null;
        for (Route r : limited) {
            if (r.method().equals(method)) {
                for (String app : applicationPaths) {
                    String full = normalize(app + "/" + r.path());
                    if (p.equals(full)) {
                        return r.policies();
                    }
                    if (suffixed == null && !app.isEmpty() && p.endsWith(full)) {
                        suffixed = r.policies(); // a context root before it: only when no route is the whole path
                    }
                }
            }
        }
        return suffixed;
    }

    /**
     * The path inside the JAX-RS application (what a policy's {@code match} reads): without the
     * application path, and without a context root before it.
     */
    String insideApplication(String path) {
        String p = normalize(path);
        String rest = p;
        int cut = -1;
        for (String app : applicationPaths) {
            if (app.isEmpty()) {
                continue;
            }
            int at = p.indexOf(app);
            while (at >= 0) {
                int end = at + app.length();
                if (end == p.length() || p.charAt(end) == '/') {
                    if (cut < 0 || end > cut) {
                        cut = end;
                    }
                    break;
                }
                at = p.indexOf(app, at + 1);
            }
        }
        if (cut >= 0) {
            rest = p.substring(cut);
        }
        return rest.isEmpty() ? "/" : rest;
    }

    /**
     * A path template as OpenAPI writes it: a leading {@code /}, no empty segment or trailing
     * {@code /}, and each parameter without its regular expression ({@code {id: [0-9]+}} is {@code {id}}).
     */
    static String normalize(String template) {
        StringBuilder sb = new StringBuilder(template.length() + 1);
        int n = template.length();
        for (int i = 0; i < n; i++) {
            char c = template.charAt(i);
            if (c == '{') {
                if (sb.length() == 0) {
                    sb.append('/');
                }
                int depth = 1;
                int j = i + 1;
                StringBuilder name = new StringBuilder();
                boolean inName = true;
                while (j < n && depth > 0) {
                    char d = template.charAt(j);
                    if (d == '{') {
                        depth++;
                    } else if (d == '}') {
                        depth--;
                    } else if (d == ':' && depth == 1) {
                        inName = false;
                    } else if (inName && !Character.isWhitespace(d)) {
                        name.append(d);
                    }
                    j++;
                }
                sb.append('{').append(name).append('}');
                i = j - 1;
            } else if (c == '/') {
                if (sb.length() == 0 || sb.charAt(sb.length() - 1) != '/') {
                    sb.append('/');
                }
            } else {
                if (sb.length() == 0) {
                    sb.append('/');
                }
                sb.append(c);
            }
        }
        if (sb.length() > 1 && sb.charAt(sb.length() - 1) == '/') {
            sb.setLength(sb.length() - 1);
        }
        return sb.length() == 0 || sb.toString().equals("/") ? "" : sb.toString();
    }
}
