package dev.tollgate.jaxrs.client;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads from a remote's answer how long every node should pause: {@code Retry-After} on a 429 or
 * 503 (seconds or an HTTP-date), and on any answer a quota the remote says is spent: the
 * {@code RateLimit} field of the IETF draft ({@code "name";r=0;t=30}, with {@code w} of the
 * matching {@code RateLimit-Policy} item when {@code t} is missing; also the older
 * {@code limit=, remaining=, reset=} form), {@code RateLimit-Remaining: 0} with
 * {@code RateLimit-Reset}, and {@code X-RateLimit-Remaining: 0} with {@code X-RateLimit-Reset}
 * (seconds, or an epoch time in seconds as GitHub sends). The longest of them wins.
 *
 * <p>Never throws for any header text. A value beyond {@code max-pause} (years away, too many
 * digits) is clamped to it; an unreadable or negative {@code Retry-After} on a refusal is too.
 * Other unreadable values say nothing. Stateless; thread-safe.
 */
final class RemoteAnswers {

    /** Header text read at most: a field longer than this is read from its start only. */
    static final int MAX_FIELD_CHARS = 4096;
    /** An {@code X-RateLimit-Reset} above this many seconds is an epoch time (2001-09-09), not a delay. */
    static final long EPOCH_SECONDS_FROM = 1_000_000_000L;
    private static final long TOO_LONG = Long.MAX_VALUE;

    private RemoteAnswers() {
    }

    /**
     * What the remote asked for.
     *
     * @param pause  how long to pause, within {@code [0, max-pause]}
     * @param absurd the remote's value when it was clamped ({@code null} when it was taken as is)
     */
    record Reading(Duration pause, String absurd) {
    }

    /**
     * @param header     a field's value by name, several lines joined by {@code ,}; {@code null} when absent
     * @param nowMillis  this node's wall clock, for an HTTP-date or an epoch reset
     * @return the pause, or {@code null} when the answer asks for none
     */
    static Reading read(int status, Function<String, String> header, long nowMillis, Duration maxPause) {
        long maxMillis = maxPause.toMillis();
        long millis = -1;
        String absurd = null;
        if (status == 429 || status == 503) {
            String retryAfter = field(header, "Retry-After");
            if (retryAfter != null) {
                long r = retryAfterMillis(retryAfter.trim(), nowMillis);
                if (r < 0 || r > maxMillis) {
                    absurd = "Retry-After: " + retryAfter;
                    r = maxMillis;
                }
                millis = r;
            }
        }
        long quota = Math.max(rateLimitMillis(field(header, "RateLimit"), field(header, "RateLimit-Policy")),
                spentMillis(field(header, "RateLimit-Remaining"), field(header, "RateLimit-Reset"), nowMillis, false));
        quota = Math.max(quota, spentMillis(field(header, "X-RateLimit-Remaining"), field(header, "X-RateLimit-Reset"),
                nowMillis, true));
        if (quota > maxMillis) {
            absurd = absurd != null ? absurd : "a quota reset " + (quota == TOO_LONG ? "beyond any date" : quota + " ms away");
            quota = maxMillis;
        }
        millis = Math.max(millis, quota);
        return millis < 0 ? null : new Reading(Duration.ofMillis(millis), absurd);
    }

    private static String field(Function<String, String> header, String name) {
        String v = header.apply(name);
        return v == null || v.length() <= MAX_FIELD_CHARS ? v : v.substring(0, MAX_FIELD_CHARS);
    }

    /** Milliseconds to wait, {@link #TOO_LONG} beyond any number, -1 when unreadable or negative. */
    static long retryAfterMillis(String v, long nowMillis) {
        if (!v.isEmpty() && (Character.isDigit(v.charAt(0)) || v.charAt(0) == '-')) {
            return seconds(v);
        }
        for (DateTimeFormatter f : HTTP_DATES) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(v, f);
                return Math.max(0, at.toInstant().toEpochMilli() - nowMillis); // a date passed: retry now
            } catch (RuntimeException e) {
                // the next form
            }
        }
        return -1;
    }

    /** The HTTP-date forms a recipient reads (RFC 9110, 5.6.7): IMF-fixdate, RFC 850 and asctime. */
    private static final List<DateTimeFormatter> HTTP_DATES = List.of(DateTimeFormatter.RFC_1123_DATE_TIME,
            new java.time.format.DateTimeFormatterBuilder().appendPattern("EEEE, dd-MMM-")
                    .appendValueReduced(java.time.temporal.ChronoField.YEAR, 2, 2, 1970)
                    .appendPattern(" HH:mm:ss 'GMT'").toFormatter(Locale.US).withZone(java.time.ZoneOffset.UTC),
            DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US).withZone(java.time.ZoneOffset.UTC));

    /** Whole non-negative seconds as ms; {@link #TOO_LONG} for more digits than a long holds; -1 otherwise. */
    static long seconds(String v) {
        String s = v.trim();
        if (s.isEmpty() || s.length() > 64) {
            return s.length() > 64 && s.chars().allMatch(Character::isDigit) ? TOO_LONG : -1;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return -1;
            }
        }
        if (s.length() > 15) {
            return TOO_LONG; // more than 31 million years in ms: beyond any max-pause
        }
        return Long.parseLong(s) * 1000;
    }

    /** A spent quota in a pair of fields (remaining 0, then the reset): the ms to the reset; -1 when not spent. */
    private static long spentMillis(String remaining, String reset, long nowMillis, boolean epochAllowed) {
        if (remaining == null || reset == null || seconds(first(remaining)) != 0) {
            return -1;
        }
        long r = seconds(first(reset));
        if (epochAllowed && r != TOO_LONG && r >= EPOCH_SECONDS_FROM * 1000) {
            return Math.max(0, r - nowMillis);
        }
        return r;
    }

    private static String first(String listed) {
        int comma = listed.indexOf(',');
        return comma < 0 ? listed : listed.substring(0, comma);
    }

    /**
     * The {@code RateLimit} field: the longest reset among items whose remaining is 0 (an item's
     * {@code t}, else the {@code w} of the {@code RateLimit-Policy} item of the same name); -1 when
     * none is spent.
     */
    static long rateLimitMillis(String rateLimit, String policies) {
        if (rateLimit == null) {
            return -1;
        }
        Map<String, Map<String, String>> windows = new HashMap<>();
        if (policies != null) {
            for (Item p : items(policies)) {
                windows.put(p.name, p.params);
            }
        }
        long longest = -1;
        Map<String, String> unnamed = new HashMap<>(); // the older form: limit=, remaining=, reset= as items of their own
        List<Item> items = items(rateLimit);
        for (Item i : items) {
            if (i.name.isEmpty()) {
                unnamed.putAll(i.params);
            }
        }
        items.add(new Item("", unnamed));
        for (Item i : items) {
            String r = i.params.getOrDefault("r", i.params.get("remaining"));
            if (r == null || seconds(r) != 0) {
                continue;
            }
            String t = i.params.getOrDefault("t", i.params.get("reset"));
            if (t == null && windows.containsKey(i.name)) {
                t = windows.get(i.name).get("w");
            }
            if (t != null) {
                longest = Math.max(longest, seconds(t));
            }
        }
        return longest;
    }

    /** One list member of a structured field: its name (unquoted; empty when it is a bare parameter) and parameters. */
    private record Item(String name, Map<String, String> params) {
    }

    private static List<Item> items(String field) {
        List<Item> out = new ArrayList<>();
        for (String member : split(field, ',')) {
            List<String> parts = split(member, ';');
            Map<String, String> params = new HashMap<>();
            String name = parts.isEmpty() ? "" : parts.get(0).trim();
            int from = 1;
            if (name.indexOf('=') >= 0 && !name.startsWith("\"")) {
                name = "";
                from = 0;
            }
            for (int k = from; k < parts.size(); k++) {
                String p = parts.get(k).trim();
                int eq = p.indexOf('=');
                if (eq > 0) {
                    params.put(p.substring(0, eq).trim().toLowerCase(Locale.ROOT), unquote(p.substring(eq + 1).trim()));
                }
            }
            out.add(new Item(unquote(name), params));
        }
        return out;
    }

    /** Splits at {@code separator} outside double quotes (a backslash escapes inside them). */
    private static List<String> split(String text, char separator) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted && c == '\\' && i + 1 < text.length()) {
                current.append(c).append(text.charAt(++i));
                continue;
            }
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == separator && !quoted) {
                out.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        out.add(current.toString());
        return out;
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }
}
