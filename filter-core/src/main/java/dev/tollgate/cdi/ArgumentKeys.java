package dev.tollgate.cdi;

import java.lang.reflect.Array;

/**
 * The client key of a call from its {@link RateLimitKey} arguments, and the key of a call made
 * outside any HTTP request. The rules are {@link RateLimitKey}'s; the result is a raw key, bounded
 * and made safe later like every client key ({@code ClientKeys}). Never throws. Stateless; thread-safe.
 *
 * <p>Why the encoding is one-to-one: a value's text has every {@code %}, {@code ,}, {@code [} and
 * {@code ]} escaped, so it contains none of the separators, never starts with {@code [} (an
 * array does), and never contains {@code %00} (the null value) or {@code %22%22} (the empty text),
 * which {@code %25} cannot begin.
 */
final class ArgumentKeys {

    /** What every argument key starts with; no key resolver of the filters makes one. */
    static final String PREFIX = "arg=";
    /** What a call outside any HTTP request, with no key argument, is keyed by, before the method's name. */
    static final String NO_REQUEST_PREFIX = "method=";
    /** The null value. */
    static final String NULL = "%00";
    /**
     * The empty text: written as nothing, {@code [""]} would be {@code []}, the empty array's key.
     * No text makes it, as {@code %} in a text is {@code %25}.
     */
    static final String EMPTY = "%22%22";
    /** Arrays nested deeper are the null value: a self-containing array must end. */
    static final int MAX_DEPTH = 8;

    private ArgumentKeys() {
    }

    /** The key of the given argument values, in parameter order. */
    static String of(Object... values) {
        StringBuilder sb = new StringBuilder(PREFIX);
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            append(values[i], sb, 0);
        }
        return sb.toString();
    }

    /** The key shared by every caller of a method outside an HTTP request: its class and name. */
    static String noRequest(Class<?> type, String method) {
        return NO_REQUEST_PREFIX + type.getName() + "." + method;
    }

    private static void append(Object value, StringBuilder sb, int depth) {
        if (value != null && value.getClass().isArray()) {
            if (depth >= MAX_DEPTH) {
                sb.append(NULL);
                return;
            }
            sb.append('[');
            int n = Array.getLength(value);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                append(Array.get(value, i), sb, depth + 1);
            }
            sb.append(']');
            return;
        }
        String text = text(value);
        if (text == null) {
            sb.append(NULL);
            return;
        }
        if (text.isEmpty()) {
            sb.append(EMPTY);
            return;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '%' -> sb.append("%25");
                case ',' -> sb.append("%2C");
                case '[' -> sb.append("%5B");
                case ']' -> sb.append("%5D");
                default -> sb.append(c);
            }
        }
    }

    /** A value's text, or {@code null} for the null value (null, or a {@code toString} that fails or answers null). */
    private static String text(Object value) {
        if (value == null) {
            return null;
        }
        try {
            return value.toString();
        } catch (RuntimeException | StackOverflowError e) {
            return null;
        }
    }
}
