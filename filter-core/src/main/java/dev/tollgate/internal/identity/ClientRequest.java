package dev.tollgate.internal.identity;

import dev.tollgate.ClientAddresses;
import dev.tollgate.RequestView;
import java.util.List;

/**
 * A request as the engine passes it on: the adapter's view, plus the client's address found
 * once (through trusted proxies) and reused by every policy of the request. Never throws.
 */
public final class ClientRequest implements RequestView {

    private final RequestView request;
    private final ClientAddresses addresses;
    private byte[] client;
    private String clientKey;

    public ClientRequest(RequestView request, ClientAddresses addresses) {
        this.request = request;
        this.addresses = addresses;
    }

    /** The client's address bytes, {@code null} when unknown. */
    public byte[] clientBytes() {
        if (clientKey == null) {
            try {
                client = addresses.client(request);
            } catch (RuntimeException e) {
                client = null;
            }
            clientKey = addresses.key(client);
        }
        return client;
    }

    /** Whether the peer is a trusted proxy (whose plan header is believed). */
    public boolean fromTrustedProxy() {
        try {
            return addresses.fromTrustedProxy(request);
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public String clientAddress() {
        clientBytes();
        return clientKey;
    }

    @Override
    public String method() {
        return safe(() -> request.method());
    }

    @Override
    public String path() {
        return safe(() -> request.path());
    }

    @Override
    public String route() {
        return safe(() -> request.route());
    }

    @Override
    public String remoteAddress() {
        return safe(() -> request.remoteAddress());
    }

    @Override
    public String header(String name) {
        return safe(() -> request.header(name));
    }

    @Override
    public List<String> headers(String name) {
        try {
            List<String> v = request.headers(name);
            return v == null ? List.of() : v;
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    @Override
    public String principal() {
        return safe(() -> request.principal());
    }

    @Override
    public String clientKey() {
        return safe(() -> request.clientKey());
    }

    @Override
    public boolean userInRole(String role) {
        try {
            return request.userInRole(role);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static String safe(java.util.function.Supplier<String> s) {
        try {
            return s.get();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
