package dev.tollgate.adapter;

import dev.tollgate.Health;
import dev.tollgate.HttpAnswer;
import dev.tollgate.RateLimiter;
import dev.tollgate.config.HealthSettings;
import dev.tollgate.internal.address.IpAddresses;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Tollgate's health over HTTP ({@code tollgate.health.path}), for an adapter to serve: at
 * {@code <path>} readiness and liveness together, at {@code <path>/ready} readiness, at
 * {@code <path>/live} liveness, each in MicroProfile Health's JSON
 * ({@code {"status":"UP","checks":[{"name":"tollgate","status":"UP","data":{...}}]}}), with 200
 * when every check is up and 503 otherwise.
 *
 * <p>Readiness is {@link RateLimiter#health()} of every limiter of the application
 * ({@link RateLimiter#live()}), as the MicroProfile Health check reports it: down only while Redis
 * is unavailable and a policy then refuses requests ({@code closed}). Liveness is down only when
 * the adapter's limiter is not running (its start failed, or it was destroyed): a Redis outage
 * never makes Tollgate not live, since restarting would not bring Redis back and the circuit
 * reconnects by itself.
 *
 * <p>Only the connection addresses {@code tollgate.health.allow} lists are answered (loopback by
 * default): the peer of the connection, never a forwarded address, which a client can write. Any
 * other gets 404, as if the path did not exist. The JSON carries the limiters' names, store,
 * circuit, counters and last failure (a Redis URI in it shown without its password), never a
 * client key or a password.
 *
 * <p>Immutable and thread-safe.
 */
public final class HealthEndpoint {

    /** What a request asks for. */
    private enum Kind { ALL, READY, LIVE }

    private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^@/\\s]*@");
    private static final List<HttpAnswer.Header> NO_STORE = List.of(new HttpAnswer.Header("Cache-Control", "no-store"));

    private final HealthSettings settings;

    public HealthEndpoint(HealthSettings settings) {
        this.settings = settings;
    }

    /** The path, or {@code null} when health is not served. */
    public String path() {
        return settings.path();
    }

    /** Whether a request of this path (inside the application, as {@link dev.tollgate.RequestView#path()}) is for the endpoint. */
    public boolean covers(String path) {
        return kind(path) != null;
    }

    private Kind kind(String path) {
        String p = settings.path();
        if (p == null || path == null || !path.startsWith(p)) {
            return null;
        }
        String rest = path.substring(p.length());
        return switch (rest) {
            case "" -> Kind.ALL;
            case "/ready" -> Kind.READY;
            case "/live" -> Kind.LIVE;
            default -> null;
        };
    }

    /**
     * The answer to a request for the endpoint, or {@link HttpAnswer#PASS} when the request is not
     * for it ({@link #covers}).
     *
     * @param method        the request's method: {@code GET} and {@code HEAD} are answered, others get 405
     * @param remoteAddress the connection's peer address (not a forwarded one)
     * @param started       whether the adapter's limiter is running
     */
    public HttpAnswer answer(String method, String path, String remoteAddress, boolean started) {
        if (kind(path) == null) {
            return HttpAnswer.PASS;
        }
        List<RateLimiter> limiters = RateLimiter.live();
        List<Health> healths = new java.util.ArrayList<>(limiters.size());
        for (RateLimiter l : limiters) {
            healths.add(l.health());
        }
        return answer(method, path, remoteAddress, started, healths);
    }

    /** {@link #answer(String, String, String, boolean)} for these limiters' health (for tests). */
    HttpAnswer answer(String method, String path, String remoteAddress, boolean started, List<Health> healths) {
        Kind kind = kind(path);
        if (kind == null) {
            return HttpAnswer.PASS;
        }
        if (!settings.allow().contains(IpAddresses.parse(remoteAddress))) {
            return new HttpAnswer(404, NO_STORE, "text/plain", "");
        }
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            return new HttpAnswer(405, List.of(new HttpAnswer.Header("Allow", "GET, HEAD"),
                    new HttpAnswer.Header("Cache-Control", "no-store")), "text/plain", "");
        }
        boolean up = true;
        StringBuilder checks = new StringBuilder();
        if (kind != Kind.LIVE) {
            StringBuilder data = new StringBuilder();
            boolean ready = started;
            for (Health h : healths) {
                ready &= h.ready();
                String p = h.limiter() + ".";
                field(data, p + "store", string(h.store()));
                field(data, p + "circuit", string(h.circuit()));
                field(data, p + "fallback", Boolean.toString(h.fallback()));
                field(data, p + "redisCalls", Long.toString(h.redisCalls()));
                field(data, p + "redisFailures", Long.toString(h.redisFailures()));
                if (h.lastFailure() != null) {
                    field(data, p + "lastFailure", string(USER_INFO.matcher(h.lastFailure()).replaceAll("$1****@")));
                }
            }
            check(checks, "tollgate", ready, data);
            up = ready;
        }
        if (kind != Kind.READY) {
            check(checks, "tollgate-live", started, null);
            up &= started;
        }
        String body = "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"checks\":[" + checks + "]}";
        return new HttpAnswer(up ? 200 : 503, NO_STORE, "application/json", body);
    }

    private static void check(StringBuilder checks, String name, boolean up, StringBuilder data) {
        if (checks.length() > 0) {
            checks.append(',');
        }
        checks.append("{\"name\":\"").append(name).append("\",\"status\":\"").append(up ? "UP" : "DOWN").append('"');
        if (data != null && data.length() > 0) {
            checks.append(",\"data\":{").append(data).append('}');
        }
        checks.append('}');
    }

    private static void field(StringBuilder data, String name, String json) {
        if (data.length() > 0) {
            data.append(',');
        }
        data.append(string(name)).append(':').append(json);
    }

    /** A JSON string. */
    static String string(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
