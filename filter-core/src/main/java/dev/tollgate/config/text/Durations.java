package dev.tollgate.config.text;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as operators write them: {@code 50ms}, {@code 1.5s}, {@code 2min}, or ISO-8601 {@code PT0.05S}. */
public final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min|h)");

    private Durations() {
    }

    /** A duration as an operator writes it: {@code 1ms}, {@code 60s}, {@code 5min}, {@code 1h}. */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toNanos() % 3_600_000_000_000L == 0) {
            return d.toHours() + "h";
        }
        if (d.toNanos() % 60_000_000_000L == 0 && d.toSeconds() > 60) {
            return d.toMinutes() + "min";
        }
        if (d.toNanos() % 1_000_000_000L == 0) {
            return d.toSeconds() + "s";
        }
        return d.toMillis() + "ms";
    }

    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(t);
        if (m.matches()) {
            BigDecimal amount = new BigDecimal(m.group(1));
            long unitNanos = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m", "min" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            try {
                return Duration.ofNanos(amount.multiply(BigDecimal.valueOf(unitNanos)).longValueExact());
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("'" + text + "' is too long or too precise");
            }
        }
        try {
            return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration");
        }
    }
}
