package dev.tollgate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/** {@code redis://} and {@code rediss://} URIs: parsed, and shown without their password. Stateless and thread-safe. */
final class RedisUris {

    private RedisUris() {
    }

    /**
     * A standalone server from its URI, with the default timeout, pool and circuit (the reader
     * replaces them with the configured ones).
     */
    static RedisSettings parse(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("it is not a URI");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalArgumentException("the scheme must be redis or rediss");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("it has no host");
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = uri.getPort() == -1 ? 6379 : uri.getPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("the port must be from 1 to 65535");
        }
        String user = null;
        String password = null;
        String info = uri.getUserInfo();
        if (info != null && !info.isEmpty()) {
            int colon = info.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("the user info must be 'user:password' or ':password'");
            }
            user = colon == 0 ? null : info.substring(0, colon);
            password = info.substring(colon + 1);
            if (password.isEmpty()) {
                password = null;
            }
        }
        int db = 0;
        String path = uri.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                db = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the path must be a database number, e.g. /0");
            }
            if (db < 0) {
                throw new IllegalArgumentException("the database number must not be negative");
            }
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("it must not have a query or fragment");
        }
        return RedisSettings.builder(RedisSettings.Topology.standalone(host, port, db)).tls(scheme.equals("rediss"))
                .credentials(user, password).build();
    }

    /**
     * The URI with anything that may be a password replaced by ****, for messages, however
     * malformed the URI: everything between the first ':' of the user info and the last '@'.
     */
    static String maskPassword(String uri) {
        int at = uri.lastIndexOf('@');
        if (at < 0) {
            return uri;
        }
        int scheme = uri.indexOf("://");
        int start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
        int colon = uri.indexOf(':', start);
        if (colon < 0 || colon > at) {
            return uri.substring(0, start) + "****" + uri.substring(at);
        }
        return uri.substring(0, colon + 1) + "****" + uri.substring(at);
    }
}
