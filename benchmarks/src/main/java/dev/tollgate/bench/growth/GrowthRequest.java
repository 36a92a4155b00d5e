package dev.tollgate.bench.growth;

import dev.tollgate.RequestView;
import java.util.List;

/** A request as an adapter presents it: method, path, peer address and at most one header. */
record GrowthRequest(String method, String path, String remoteAddress, String headerName, String headerValue)
        implements RequestView {

    static GrowthRequest of(String method, String path, String remoteAddress) {
        return new GrowthRequest(method, path, remoteAddress, null, null);
    }

    @Override
    public String route() {
        return null;
    }

    @Override
    public String header(String name) {
        return headerName != null && headerName.equalsIgnoreCase(name) ? headerValue : null;
    }

    @Override
    public List<String> headers(String name) {
        return headerName != null && headerName.equalsIgnoreCase(name) ? List.of(headerValue) : List.of();
    }

    @Override
    public String principal() {
        return null;
    }

    @Override
    public boolean userInRole(String role) {
        return false;
    }
}
