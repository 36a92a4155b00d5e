package dev.tollgate.testing;

import java.util.Random;

/**
 * Values a hostile client would send, from a seeded {@link Random}: the same seed gives the same
 * sequence, so a failure names its seed and index and can be replayed.
 *
 * <p>Categories: empty and blank, huge (up to {@value #MAX_HUGE} characters), non-ASCII (CJK,
 * emoji, right-to-left overrides, unpaired surrogates, U+FFFF), control characters (NUL, CR, LF,
 * ESC, DEL, C1), and malicious tokens glued together: Redis hash-tag braces, {@code %} escapes,
 * quotes, separators of the forwarding headers, address look-alikes.
 */
public final class HostileValues {

    public static final int MAX_HUGE = 100_000;

    private static final String[] TOKENS = {
        "{", "}", "{}", "}{", "{{", "}}", "{a}", "%", "%00", "%7B", "%7D", "%25", "%%", "%zz", "\r\n", "\n", "\r",
        "\u0000", "\"", "'", "`", "\\", "\\\"", ",", ";", "=", "+", ":", "::", "[", "]", "/", "//", "..", "../", "*",
        "**", "?", "#", "&", "@", "~", " ", "\t", "for=", "for=\"", "for=\"[", "by=", "proto=https", "host=x",
        "unknown", "_hidden", "tollgate:", "ip=", "header.x-api-key=", "principal=", "route=", "${jndi:ldap://x/a}",
        "<script>", "' OR 1=1 --", "null", "NaN", "-1", "0", "9999999999999999999999", "0x7f000001",
        "127.0.0.1", "10.0.0.1", "192.0.2.1", "203.0.113.7", "::1", "::ffff:10.0.0.1", "fe80::1%eth0", "2001:db8::1",
        "[2001:db8::1]:443", "1.2.3.4:80", "01.02.03.04", "256.1.1.1", "1.2.3", "1.2.3.4.5", "[::1", "::1]",
        "\u202e", "\u200b", "\ufeff", "\uffff", "\ud800", "\udfff", "\ud83d\udea6", "\u4e2d\u6587", "\u00e9",
        "\u0130", "\u00ff", "\u0085", "\u2028", "\u001b[2J"
    };

    private final Random random;
    private long counter;

    public HostileValues(long seed) {
        this.random = new Random(seed);
    }

    public Random random() {
        return random;
    }

    /** Any hostile value; huge ones are rarer, since each costs up to 100 KB. */
    public String next() {
        return random.nextInt(50) == 0 ? huge() : nextSmall();
    }

    /** Any hostile value but a huge one (at most a few hundred characters). */
    public String nextSmall() {
        int c = 2 + random.nextInt(98);
        if (c < 4) {
            return "";
        }
        if (c < 9) {
            return blank();
        }
        if (c < 20) {
            return nonAscii(1 + random.nextInt(40));
        }
        if (c < 30) {
            return controls(1 + random.nextInt(20));
        }
        if (c < 45) {
            return address();
        }
        if (c < 55) {
            return mixed(121 + random.nextInt(400)); // just past the readable key limit
        }
        if (c < 65) {
            return distinct();
        }
        return tokens(1 + random.nextInt(12));
    }

    /** A value never returned before (so a flood of them means distinct clients), with hostile characters in it. */
    public String distinct() {
        long n = counter++;
        switch ((int) (n % 4)) {
            case 0:
                return "client-" + n;
            case 1:
                return "{" + n + "}";
            case 2:
                return "\u4e2d" + n + "%" + "\r\n";
            default:
                return tokens(2) + n;
        }
    }

    public String blank() {
        String[] blanks = {" ", "\t", "  \t  ", "\u00a0", "\u3000", "\r\n", "\u000b"};
        return blanks[random.nextInt(blanks.length)];
    }

    /** From 8 KiB to {@value #MAX_HUGE} characters: one character repeated, or a mix. */
    public String huge() {
        int n = 8192 + random.nextInt(MAX_HUGE - 8192 + 1);
        switch (random.nextInt(4)) {
            case 0:
                return "{".repeat(n);
            case 1:
                return "a".repeat(n - 2) + "{}";
            case 2:
                return ("203.0.113." + random.nextInt(256) + ", ").repeat(n / 16);
            default: // a mixed chunk repeated: generating 100 KB character by character is too slow to do often
                String chunk = mixed(512 + random.nextInt(4096));
                return chunk.repeat(n / chunk.length() + 1).substring(0, n);
        }
    }

    /** {@code n} characters drawn from every category. */
    public String mixed(int n) {
        StringBuilder sb = new StringBuilder(n + 16);
        while (sb.length() < n) {
            switch (random.nextInt(4)) {
                case 0:
                    sb.append(TOKENS[random.nextInt(TOKENS.length)]);
                    break;
                case 1:
                    sb.appendCodePoint(nonAsciiCodePoint());
                    break;
                case 2:
                    sb.append((char) random.nextInt(0x20));
                    break;
                default:
                    sb.append((char) (0x20 + random.nextInt(0x5f)));
            }
        }
        return sb.toString();
    }

    public String tokens(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(TOKENS[random.nextInt(TOKENS.length)]);
        }
        return sb.toString();
    }

    public String nonAscii(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.appendCodePoint(nonAsciiCodePoint());
        }
        return sb.toString();
    }

    private int nonAsciiCodePoint() {
        switch (random.nextInt(7)) {
            case 0:
                return 0x80 + random.nextInt(0x80); // C1 controls and Latin-1
            case 1:
                return 0x4e00 + random.nextInt(0x5000); // CJK
            case 2:
                return 0x1f300 + random.nextInt(0x300); // emoji: a surrogate pair in UTF-16
            case 3:
                return 0xd800 + random.nextInt(0x800); // an unpaired surrogate
            case 4:
                return new int[] {0x202e, 0x200b, 0xfeff, 0xffff, 0xfffd, 0x2028}[random.nextInt(6)];
            case 5:
                return 0x0600 + random.nextInt(0x100); // Arabic, right to left
            default:
                return 0x100 + random.nextInt(0x2000);
        }
    }

    public String controls(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int c = random.nextInt(3);
            sb.append(c == 0 ? (char) random.nextInt(0x20) : c == 1 ? (char) 0x7f : (char) (0x80 + random.nextInt(0x20)));
        }
        return sb.toString();
    }

    /** Something that looks like an address: valid IPv4 or IPv6, with port, brackets, zone, or broken. */
    public String address() {
        switch (random.nextInt(10)) {
            case 0:
                return random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
            case 1:
                return random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256)
                        + ":" + random.nextInt(70_000);
            case 2:
                return "2001:db8:" + Integer.toHexString(random.nextInt(0x10000)) + "::" + Integer.toHexString(random.nextInt(0x10000));
            case 3:
                return "[2001:db8::" + Integer.toHexString(random.nextInt(0x10000)) + "]:" + random.nextInt(70_000);
            case 4:
                return "fe80::" + random.nextInt(100) + "%" + tokens(1);
            case 5:
                return "::ffff:" + random.nextInt(300) + "." + random.nextInt(300) + ".0.1";
            case 6:
                return "10.0." + random.nextInt(256) + "." + random.nextInt(256); // a trusted proxy, usually
            case 7:
                return tokens(1) + random.nextInt(256) + "." + random.nextInt(256) + ".0.1" + tokens(1);
            case 8:
                return "1:2:3:4:5:6:7:8:9".substring(0, 1 + random.nextInt(17)) + (random.nextBoolean() ? "::" : "");
            default:
                return "unknown";
        }
    }

    /**
     * A forwarding header value: a list of hops, each an address, a hostile value or (for
     * {@code Forwarded}) a {@code for=} element; one in ten is a list of more than 32 hops, one in a
     * hundred about {@value #MAX_HUGE} characters long.
     */
    public String forwardingHeader(boolean rfc7239) {
        if (random.nextInt(100) == 0) { // about 100 KB: one hop repeated, then the real end
            String hop = rfc7239 ? "for=\"" + address() + "\"" : address();
            return (hop + ", ").repeat(MAX_HUGE / (hop.length() + 2)) + (rfc7239 ? "for=" : "") + address();
        }
        boolean many = random.nextInt(10) == 0;
        int hops = many ? 33 + random.nextInt(200) : random.nextInt(6);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < hops && sb.length() < MAX_HUGE; i++) {
            if (i > 0) {
                sb.append(random.nextInt(10) == 0 ? tokens(1) : ", ");
            }
            String hop = !many && random.nextInt(3) == 0 ? nextSmall() : address();
            if (rfc7239) {
                switch (random.nextInt(5)) {
                    case 0:
                        sb.append("for=").append(hop);
                        break;
                    case 1:
                        sb.append("for=\"").append(hop).append('"');
                        break;
                    case 2:
                        sb.append("proto=http;for=\"[").append(hop).append("]\";by=").append(tokens(1));
                        break;
                    case 3:
                        sb.append("for=\"").append(hop); // unterminated quote
                        break;
                    default:
                        sb.append(hop);
                }
            } else {
                sb.append(hop);
            }
        }
        return sb.toString();
    }

    /** A request path: mostly under {@code /api/}, with hostile segments, sometimes not a path at all. */
    public String path() {
        switch (random.nextInt(8)) {
            case 0:
                return next();
            case 1:
                return "/api/" + next();
            case 2:
                return "/api/" + "/".repeat(random.nextInt(2000));
            case 3:
                return "/export/" + next() + "/" + next();
            case 4:
                return "/api/v1/items/" + next();
            case 5:
                return "/" + "a/".repeat(random.nextInt(5000));
            case 6:
                return "/api/hello";
            default:
                return "/" + tokens(1 + random.nextInt(6));
        }
    }

    /** An HTTP method, upper case or not, known or not. */
    public String method() {
        String[] methods = {"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "get", "Post", "CONNECT", "TRACE",
            "", "G E T", "GET\r\n", "\u0130NDEX"};
        return random.nextInt(10) == 0 ? next() : methods[random.nextInt(methods.length)];
    }
}
