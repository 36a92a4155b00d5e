package dev.tollgate;

import dev.tollgate.internal.address.IpAddresses;
import java.util.List;

/**
 * Who the client is, as far as addresses tell: the peer, unless the peer is a trusted proxy, in
 * which case the forwarding header is walked from the right, skipping trusted hops, and the first
 * untrusted address is the client. A request from an untrusted peer is the peer, whatever headers
 * it sends.
 *
 * <p>Proxies append on the right, so only the right end of the header is theirs; everything left
 * of the element naming the client was written by the client. The walk therefore reads one
 * element at a time from the right and stops at the first untrusted address: no client-written
 * byte is ever interpreted, not even to find where an element ends. Each field line is read on
 * its own (a quoted string never spans two lines), and {@code X-Forwarded-For}, which has no
 * quoting, is split on commas only.
 *
 * <p>An entry that is not an address ({@code unknown}, an obfuscated {@code _name}, garbage, a
 * {@code Forwarded} element that is malformed or has no single {@code for=}) ends the walk: the
 * client is then the trusted hop that reported it. At most {@value #MAX_HOPS} hops and the
 * rightmost {@value #MAX_HEADER_CHARS} characters of the field lines are read; an element beyond
 * either bound ends the walk the same way, so an oversized header loses its left, client-written
 * end, never the hops the trusted proxies added.
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
    static final int MAX_HEADER_CHARS = 8192;

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
        List<String> lines = request.headers(header.headerName());
        return lines == null ? peer : walk(lines, peer);
    }

    /**
     * From the last field line to the first, each line from its right end: every element read was
     * appended by the hop found before it ({@code current}), which is trusted.
     */
    private byte[] walk(List<String> lines, byte[] peer) {
        byte[] current = peer;
        int hops = 0;
        int charsRead = 0;
        for (int l = lines.size() - 1; l >= 0; l--) {
            String line = lines.get(l);
            if (line == null) {
                continue;
            }
            int end = line.length();
            while (end > 0) {
                int start = elementStart(line, end, Math.max(0, end - (MAX_HEADER_CHARS - charsRead)));
                if (start < 0) {
                    return current;
                }
                charsRead += end - start;
                String element = line.substring(start, end).trim();
                charsRead++; // the comma, or the line break
                end = start - 1;
                if (element.isEmpty()) {
                    continue; // an empty list element (RFC 9110 5.6.1) is no hop
                }
                if (++hops > MAX_HOPS) {
                    return current;
                }
                byte[] a = IpAddresses.parse(header == Header.FORWARDED ? forValue(element) : element);
                if (a == null) {
                    return current;
                }
                if (!trusted.contains(a)) {
                    return a;
                }
                current = a;
            }
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
     * Where the element that ends at {@code end} starts: after the nearest comma to its left (in
     * {@code Forwarded}, the nearest outside a quoted string). Read leftwards, so the text left of
     * that comma is never looked at; a well-formed element is read exactly. {@code -1} when the
     * element does not start at or after {@code floor} (beyond the character bound), or a quoted
     * string is still open at the start of the line.
     */
    private int elementStart(String line, int end, int floor) {
        boolean quotes = header == Header.FORWARDED;
        boolean quoted = false;
        for (int i = end - 1; i >= floor; i--) {
            char c = line.charAt(i);
            if (c == '"' && quotes && !(quoted && escaped(line, i, floor))) {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                return i + 1;
            }
        }
        return floor == 0 && !quoted ? 0 : -1;
    }

    /** Whether the quote at {@code i} is a quoted-pair: an odd run of backslashes before it. */
    private static boolean escaped(String s, int i, int floor) {
        int backslashes = 0;
        for (int j = i - 1; j >= floor && s.charAt(j) == '\\'; j--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    /**
     * The value of {@code for=} in one {@code Forwarded} element ({@code pair *(";" pair)}, each
     * {@code name=token} or {@code name="quoted string"}), unquoted. {@code null} when the
     * element is malformed, or has no {@code for=}, or more than one.
     */
    static String forValue(String element) {
        String found = null;
        int n = element.length();
        int i = 0;
        while (true) {
            i = skipSpaces(element, i);
            if (i == n) {
                return found;
            }
            if (element.charAt(i) == ';') {
                i++; // an empty pair
                continue;
            }
            int eq = element.indexOf('=', i);
            if (eq < 0) {
                return null;
            }
            String name = element.substring(i, eq).trim();
            int v = skipSpaces(element, eq + 1);
            String value;
            if (v < n && element.charAt(v) == '"') {
                StringBuilder sb = new StringBuilder();
                int j = v + 1;
                for (; j < n && element.charAt(j) != '"'; j++) {
                    if (element.charAt(j) == '\\' && j + 1 < n) {
                        j++;
                    }
                    sb.append(element.charAt(j));
                }
                if (j == n) {
                    return null; // not closed
                }
                value = sb.toString();
                i = skipSpaces(element, j + 1);
            } else {
                int j = element.indexOf(';', v);
                j = j < 0 ? n : j;
                value = element.substring(v, j).trim();
                if (!printable(value, "\"")) {
                    return null;
                }
                i = j;
            }
            if (!printable(name, "\"(),/:;<=>?@[\\]{}") || (i < n && element.charAt(i) != ';')) {
                return null;
            }
            if (name.equalsIgnoreCase("for")) {
                if (found != null) {
                    return null; // a parameter occurs once per element (RFC 7239 section 4)
                }
                found = value;
            }
        }
    }

    /** Non-empty, visible ASCII only, none of {@code excluded}: a token, or a lenient unquoted value. */
    private static boolean printable(String s, String excluded) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c > '~' || excluded.indexOf(c) >= 0) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }
}
