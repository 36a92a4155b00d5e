package dev.tollgate.testing;

import dev.tollgate.RequestView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** A request for engine tests, built field by field. */
public class TestRequest implements RequestView {

    private String method = "GET";
    private String path = "/";
    private String route;
    private String remote = "192.0.2.1";
    private String principal;
    private Set<String> roles = Set.of();
    private final Map<String, List<String>> headers = new LinkedHashMap<>();

    public static TestRequest get(String path) {
        return new TestRequest().method("GET").path(path);
    }

    public TestRequest method(String m) {
        method = m;
        return this;
    }

    public TestRequest path(String p) {
        path = p;
        return this;
    }

    public TestRequest route(String r) {
        route = r;
        return this;
    }

    public TestRequest from(String address) {
        remote = address;
        return this;
    }

    public TestRequest user(String name, String... userRoles) {
        principal = name;
        roles = Set.of(userRoles);
        return this;
    }

    public TestRequest header(String name, String value) {
        headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String route() {
        return route;
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public String header(String name) {
        List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
        return v == null ? null : v.get(0);
    }

    @Override
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public boolean userInRole(String role) {
        return principal != null && roles.contains(role);
    }
}
