package dev.tollgate.internal.identity;

import dev.tollgate.RequestView;
import java.util.List;

/**
 * A call decided under a client key chosen in code: the CDI interceptor's (with the HTTP request
 * it runs in, if any) and a limit taken from code ({@code Limiter.acquire}: no request at all,
 * only the key). Everything but the key is the request's, or absent. Its {@link #toString()}
 * never shows the key. Immutable.
 */
public final class KeyedRequest implements RequestView {
    private final RequestView http;
    private final String key;

    /**
     * @param http the HTTP request the call runs in, or {@code null}
     * @param key  the client key
     */
    public KeyedRequest(RequestView http, String key) {
        this.http = http;
        this.key = key;
    }

    @Override
    public String clientKey() {
        return key;
    }

    @Override
    public String method() {
        return http == null ? null : http.method();
    }

    @Override
    public String path() {
        return http == null ? null : http.path();
    }

    @Override
    public String route() {
        return http == null ? null : http.route();
    }

    @Override
    public String remoteAddress() {
        return http == null ? null : http.remoteAddress();
    }

    @Override
    public String header(String name) {
        return http == null ? null : http.header(name);
    }

    @Override
    public List<String> headers(String name) {
        return http == null ? List.of() : http.headers(name);
    }

    @Override
    public String principal() {
        return http == null ? null : http.principal();
    }

    @Override
    public boolean userInRole(String role) {
        return http != null && http.userInRole(role);
    }

    @Override
    public String toString() {
        return "KeyedRequest[client hidden" + (http == null ? "" : ", in an HTTP request") + "]";
    }
}
