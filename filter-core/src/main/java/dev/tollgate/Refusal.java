package dev.tollgate;

import dev.tollgate.HttpAnswer.Header;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How a policy's refusal is shaped: the status, the problem's {@code type} and {@code title}, and
 * extra response headers. {@link #STANDARD} is the answer Tollgate gives when nothing is shaped.
 * When several policies refuse one request, the first of them in {@code tollgate.policies} order
 * shapes the answer.
 *
 * <p>Immutable and thread-safe.
 *
 * @param status  the status of the refusal, 400 to 599
 * @param type    the problem's {@code type}: an absolute URI
 * @param title   the problem's {@code title}: 1 to 200 characters, no control character
 * @param headers extra headers on the refusal, in order; never one Tollgate writes itself
 */
public record Refusal(int status, String type, String title, List<Header> headers) {

    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    public static final String QUOTA_EXCEEDED_TITLE = "Request cannot be satisfied as assigned quota has been exceeded";

    /** The standard answer: 429, the IANA quota-exceeded problem, no extra header. */
    public static final Refusal STANDARD = new Refusal(429, QUOTA_EXCEEDED, QUOTA_EXCEEDED_TITLE, List.of());

    public static final String STATUS_SYNTAX = "a whole number from 400 to 599 (e.g. 429, or 503 as nginx answers)";
    public static final String TYPE_SYNTAX = "an absolute URI, e.g. 'https://example.com/problems/quota' or 'about:blank'";
    public static final String TITLE_SYNTAX = "1 to 200 characters, no control character";
    public static final String HEADERS_SYNTAX = "'Name: value' pairs separated by ';', e.g. 'X-Reason: quota; Cache-Control:"
            + " no-store'; a name is a header token, a value visible ASCII, spaces and tabs (no ';', CR or LF); not a"
            + " header Tollgate writes (Retry-After, RateLimit, RateLimit-Policy, X-RateLimit-*, Content-*)";

    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}");
    private static final Pattern FIELD_VALUE = Pattern.compile("[\\x21-\\x7E]([\\x20-\\x7E\\t]{0,998}[\\x21-\\x7E])?");
    private static final Set<String> OWN = Set.of("retry-after", "ratelimit", "ratelimit-policy", "transfer-encoding");

    public Refusal {
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("status " + status + " is outside 400..599");
        }
        type = checkType(type);
        title = checkTitle(title);
        headers = List.copyOf(headers);
        for (Header h : headers) {
            checkHeader(h.name(), h.value());
        }
    }

    /** Whether this is the standard answer, i.e. nothing is shaped. */
    public boolean isStandard() {
        return equals(STANDARD);
    }

    /** Parses a status. @throws IllegalArgumentException saying why */
    public static int parseStatus(String text) {
        int status;
        try {
            status = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("it is not a whole number");
        }
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("it is outside 400..599: a refusal is a client or server error");
        }
        return status;
    }

    /** Checks a problem type. @throws IllegalArgumentException saying why */
    public static String checkType(String text) {
        Objects.requireNonNull(text, "type");
        String t = text.trim();
        try {
            URI uri = new URI(t);
            if (!uri.isAbsolute()) {
                throw new IllegalArgumentException("it is not an absolute URI (no scheme)");
            }
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("it is not a URI: " + e.getReason());
        }
        return t;
    }

    /** Checks a problem title. @throws IllegalArgumentException saying why */
    public static String checkTitle(String text) {
        Objects.requireNonNull(text, "title");
        String t = text.trim();
        if (t.isEmpty() || t.length() > 200) {
            throw new IllegalArgumentException("it has " + t.length() + " characters");
        }
        for (int i = 0; i < t.length(); i++) {
            if (Character.isISOControl(t.charAt(i))) {
                throw new IllegalArgumentException("it holds a control character at " + i);
            }
        }
        return t;
    }

    /** Parses {@code Name: value; Name: value}. @throws IllegalArgumentException saying why */
    public static List<Header> parseHeaders(String text) {
        List<Header> out = new ArrayList<>();
        for (String part : text.split(";", -1)) {
            if (part.isBlank()) {
                continue;
            }
            int colon = part.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("'" + printable(part.trim()) + "' has no ':'");
            }
            String name = part.substring(0, colon).trim();
            String value = part.substring(colon + 1).trim();
            checkHeader(name, value);
            out.add(new Header(name, value));
        }
        return List.copyOf(out);
    }

    private static void checkHeader(String name, String value) {
        if (!TOKEN.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + printable(name) + "' is not a header name");
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (OWN.contains(lower) || lower.startsWith("x-ratelimit-") || lower.startsWith("content-")) {
            throw new IllegalArgumentException("'" + name + "' is a header Tollgate writes itself");
        }
        if (!FIELD_VALUE.matcher(value).matches()) {
            throw new IllegalArgumentException("the value of '" + name + "' is empty, too long or holds a character"
                    + " a header cannot carry (CR, LF, a control character or non-ASCII)");
        }
    }

    /** A value quoted in a message with its control characters made visible, so a CR cannot forge a log line. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
