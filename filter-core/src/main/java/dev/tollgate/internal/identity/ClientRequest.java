package dev.tollgate.internal.identity;

import dev.tollgate.ClientAddresses;
import dev.tollgate.RequestView;
import java.util.List;

/**
 * A request as the engine passes it on: the adapter's view, plus the client's address found
 * once (through trusted proxies) and reused by every policy of the request. Never throws: each
 * call to the adapter's view is guarded by its own try (no lambda per call: this is on every
 * request's path).
 *
 * <p>Not thread-safe: one per request, used by the thread deciding it.
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
        try {
            return request.method();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String path() {
        try {
            return request.path();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String route() {
        try {
            return request.route();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String remoteAddress() {
        try {
            return request.remoteAddress();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String header(String name) {
        try {
            return request.header(name);
        } catch (RuntimeException e) {
            return null;
        }
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
        try {
            return request.principal();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String clientKey() {
        try {
            return request.clientKey();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public boolean userInRole(String role) {
        try {
            return request.userInRole(role);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
