package dev.tollgate;

import dev.tollgate.internal.AddressRanges;
import dev.tollgate.internal.IpAddresses;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Who the client is, as far as addresses tell: the peer, unless the peer is a trusted proxy, in
 * which case the forwarding header is walked from the right, skipping trusted hops, and the first
 * untrusted address is the client. A request from an untrusted peer is the peer, whatever headers
 * it sends.
 *
 * <p>An entry that is not an address ({@code unknown}, an obfuscated {@code _name}, garbage) ends
 * the walk: the client is then the trusted hop that reported it. At most {@value #MAX_HOPS} hops
 * are walked.
 *
 * <p>Immutable and thread-safe.
 */
public final class ClientAddresses {

    /** The forwarding header the trusted proxies write. */
    public enum Header {
        /** {@code X-Forwarded-For: client, proxy1, proxy2} */
        X_FORWARDED_FOR("X-Forwarded-For"),
        /** RFC 7239 {@code Forwarded: for=client, for=proxy1} */
        FORWARDED("Forwarded");

        private final String name;

        Header(String name) {
            this.name = name;
        }

        public String headerName() {
            return name;
        }
    }

    static final int MAX_HOPS = 32;
    private static final int MAX_HEADER_CHARS = 8192;

    private final AddressRanges trusted;
    private final Header header;
    private final int ipv4Prefix;
    private final int ipv6Prefix;

    public ClientAddresses(AddressRanges trusted, Header header, int ipv4Prefix, int ipv6Prefix) {
        this.trusted = trusted;
        this.header = header;
        this.ipv4Prefix = ipv4Prefix;
        this.ipv6Prefix = ipv6Prefix;
    }

    /** No trusted proxy, whole addresses for IPv4 and /64 for IPv6. */
    public static final ClientAddresses DEFAULT = new ClientAddresses(AddressRanges.NONE, Header.X_FORWARDED_FOR, 32, 64);

    public AddressRanges trusted() {
        return trusted;
    }

    /** Whether the peer of this request is a trusted proxy. */
    public boolean fromTrustedProxy(RequestView request) {
        return !trusted.isEmpty() && trusted.contains(IpAddresses.parse(request.remoteAddress()));
    }

    /** The client's address, or {@code null} when even the peer's is not an address. Never throws. */
    public byte[] client(RequestView request) {
        byte[] peer = IpAddresses.parse(request.remoteAddress());
        if (peer == null || trusted.isEmpty() || !trusted.contains(peer)) {
            return peer;
        }
        List<String> hops = hops(request.headers(header.headerName()));
        byte[] current = peer;
        for (int i = hops.size() - 1; i >= 0; i--) {
            String raw = hops.get(i);
            byte[] a = header == Header.FORWARDED ? IpAddresses.parse(forValue(raw)) : IpAddresses.parse(raw);
            if (a == null) {
                return current;
            }
            if (!trusted.contains(a)) {
                return a;
            }
            current = a;
        }
        return current;
    }

    /**
     * The client's address as a key: whole for IPv4 (unless a shorter prefix is configured), and
     * its network for IPv6 ({@code 2001:db8:1:2::/64} by default), so that one host cannot rotate
     * through the addresses of its own subnet.
     */
    public String key(byte[] client) {
        if (client == null) {
            return "unknown";
        }
        int prefix = client.length == 4 ? ipv4Prefix : ipv6Prefix;
        if (prefix == client.length * 8) {
            return IpAddresses.format(client);
        }
        return IpAddresses.format(IpAddresses.mask(client, prefix)) + "/" + prefix;
    }

    /**
     * The list elements of every field line, in order, the rightmost {@value #MAX_HOPS} at most.
     * Proxies append on the right, so a header that is too long loses its left (client-written)
     * end, never the hops the trusted proxies added.
     */
    static List<String> hops(List<String> lines) {
        String all = String.join(",", lines);
        if (all.length() > MAX_HEADER_CHARS) {
            all = all.substring(all.length() - MAX_HEADER_CHARS);
            int comma = all.indexOf(',');
            all = comma < 0 ? "" : all.substring(comma + 1); // the first element was cut
        }
        List<String> out = new ArrayList<>();
        splitOutsideQuotes(all, ',', out);
        return out.size() > MAX_HOPS ? out.subList(out.size() - MAX_HOPS, out.size()) : out;
    }

    /** The value of {@code for=} in one element of a {@code Forwarded} field, unquoted; {@code null} when absent. */
    static String forValue(String element) {
        List<String> pairs = new ArrayList<>(4);
        splitOutsideQuotes(element, ';', pairs);
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                continue;
            }
            if (pair.substring(0, eq).trim().toLowerCase(Locale.ROOT).equals("for")) {
                String v = pair.substring(eq + 1).trim();
                if (v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
                    v = v.substring(1, v.length() - 1).replace("\\\"", "\"");
                }
                return v;
            }
        }
        return null;
    }

    private static void splitOutsideQuotes(String s, char sep, List<String> out) {
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' && (i == 0 || s.charAt(i - 1) != '\\')) {
                quoted = !quoted;
            } else if (c == sep && !quoted) {
                add(s.substring(start, i), out);
                start = i + 1;
            }
        }
        add(s.substring(start), out);
    }

    private static void add(String part, List<String> out) {
        String t = part.trim();
        if (!t.isEmpty()) {
            out.add(t);
        }
    }
}
