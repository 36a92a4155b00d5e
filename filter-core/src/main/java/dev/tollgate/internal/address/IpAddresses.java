package dev.tollgate.internal.address;

import java.util.Arrays;

/**
 * IP address literals, parsed without ever touching DNS ({@code InetAddress.getByName} falls back
 * to a lookup for anything that is not a valid literal, which a hostile header must never cause).
 *
 * <p>Addresses are byte arrays: 4 bytes for IPv4, 16 for IPv6. An IPv4-mapped IPv6 address
 * ({@code ::ffff:192.0.2.1}) is returned as the IPv4 address it maps.
 */
public final class IpAddresses {

    private IpAddresses() {
    }

    /**
     * Parses an address as it appears in a peer address, {@code X-Forwarded-For} or
     * {@code Forwarded}: optional brackets, an optional port ({@code 192.0.2.1:8080},
     * {@code [2001:db8::1]:443}) and an optional IPv6 zone ({@code fe80::1%eth0}) are accepted.
     *
     * @return the address, or {@code null} when the text is not an address literal
     */
    public static byte[] parse(String text) {
        if (text == null) {
            return null;
        }
        String s = text.trim();
        if (s.isEmpty() || s.length() > 64) {
            return null;
        }
        if (s.charAt(0) == '[') {
            int close = s.indexOf(']');
            if (close < 0) {
                return null;
            }
            String rest = s.substring(close + 1);
            if (!rest.isEmpty() && !validPort(rest)) {
                return null;
            }
            return parseV6(s.substring(1, close));
        }
        int colons = count(s, ':');
        if (colons == 1) {
            int c = s.indexOf(':');
            if (!validPort(s.substring(c))) {
                return null;
            }
            return parseV4(s.substring(0, c));
        }
        return colons == 0 ? parseV4(s) : parseV6(s);
    }

    /** The canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as {@code ::}). */
    public static String format(byte[] a) {
        if (a.length == 4) {
            return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }

    /** The address with every bit after the first {@code prefix} bits cleared. */
    public static byte[] mask(byte[] a, int prefix) {
        byte[] out = Arrays.copyOf(a, a.length);
        for (int bit = prefix; bit < out.length * 8; bit++) {
            out[bit >> 3] &= (byte) ~(0x80 >>> (bit & 7));
        }
        return out;
    }

    private static boolean validPort(String colonPort) {
        if (colonPort.length() < 2 || colonPort.length() > 6 || colonPort.charAt(0) != ':') {
            return false;
        }
        for (int i = 1; i < colonPort.length(); i++) {
            if (!isDigit(colonPort.charAt(i))) {
                return false;
            }
        }
        return Integer.parseInt(colonPort.substring(1)) <= 65535;
    }

    public static byte[] parseV4(String s) {
        byte[] out = new byte[4];
        int part = 0;
        int value = -1;
        int digits = 0;
        for (int i = 0; i <= s.length(); i++) {
            char c = i < s.length() ? s.charAt(i) : '.';
            if (c == '.') {
                if (value < 0 || part > 3) {
                    return null;
                }
                out[part++] = (byte) value;
                value = -1;
                digits = 0;
            } else if (isDigit(c)) {
                if (digits == 3 || (digits > 0 && value == 0)) {
                    return null; // too long, or a leading zero (octal in some parsers)
                }
                value = (value < 0 ? 0 : value * 10) + (c - '0');
                digits++;
                if (value > 255) {
                    return null;
                }
            } else {
                return null;
            }
        }
        return part == 4 ? out : null;
    }

    public static byte[] parseV6(String s) {
        int zone = s.indexOf('%');
        if (zone >= 0) {
            s = s.substring(0, zone);
        }
        byte[] out = new byte[16];
        int doubleColon = s.indexOf("::");
        if (doubleColon >= 0 && s.indexOf("::", doubleColon + 1) >= 0) {
            return null;
        }
        String head = doubleColon >= 0 ? s.substring(0, doubleColon) : s;
        String tail = doubleColon >= 0 ? s.substring(doubleColon + 2) : "";
        int[] h = groups(head, doubleColon < 0 || tail.isEmpty() ? true : false);
        int[] t = doubleColon >= 0 ? groups(tail, true) : new int[0];
        if (h == null || t == null) {
            return null;
        }
        int total = h.length + t.length;
        if ((doubleColon < 0 && total != 8) || (doubleColon >= 0 && total > 7)) {
            return null;
        }
        for (int i = 0; i < h.length; i++) {
            out[2 * i] = (byte) (h[i] >> 8);
            out[2 * i + 1] = (byte) h[i];
        }
        for (int i = 0; i < t.length; i++) {
            int g = 8 - t.length + i;
            out[2 * g] = (byte) (t[i] >> 8);
            out[2 * g + 1] = (byte) t[i];
        }
        boolean mapped = true;
        for (int i = 0; i < 10; i++) {
            mapped &= out[i] == 0;
        }
        if (mapped && out[10] == (byte) 0xff && out[11] == (byte) 0xff) {
            return Arrays.copyOfRange(out, 12, 16);
        }
        return out;
    }

    /** Groups of 16 bits; the last may be a dotted quad (two groups) when {@code last} allows it. */
    private static int[] groups(String s, boolean last) {
        if (s.isEmpty()) {
            return new int[0];
        }
        String[] parts = s.split(":", -1);
        int extra = 0;
        if (last && parts[parts.length - 1].indexOf('.') >= 0) {
            extra = 1;
        }
        int[] out = new int[parts.length + extra];
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (extra == 1 && i == parts.length - 1) {
                byte[] v4 = parseV4(p);
                if (v4 == null) {
                    return null;
                }
                out[i] = ((v4[0] & 0xff) << 8) | (v4[1] & 0xff);
                out[i + 1] = ((v4[2] & 0xff) << 8) | (v4[3] & 0xff);
                continue;
            }
            if (p.isEmpty() || p.length() > 4) {
                return null;
            }
            int v = 0;
            for (int k = 0; k < p.length(); k++) {
                int d = Character.digit(p.charAt(k), 16);
                if (d < 0) {
                    return null;
                }
                v = (v << 4) | d;
            }
            out[i] = v;
        }
        return out;
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                n++;
            }
        }
        return n;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
