package dev.tollgate;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One token bucket: it holds at most {@code capacity} tokens and gains {@code refillTokens}
 * tokens every {@code refillPeriodMicros} microseconds.
 *
 * <p>The rate is kept as the reduced fraction {@code refillTokens / refillPeriodMicros}, so any
 * rate is exact: {@code 0.5/s} is one token per 2,000,000 µs, {@code 3/s} is three tokens per
 * 1,000,000 µs, {@code 1/day} one per 86,400,000,000 µs. The stores compute in units of
 * {@code 1/refillTokens} µs, which keeps every intermediate value an exact integer below
 * {@link #MAX_SCALED_CAPACITY}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param capacity           the most tokens the bucket holds (the burst), at least 1
 * @param refillTokens       tokens added per period, at least 1, coprime with the period
 * @param refillPeriodMicros the period in microseconds, at least 1
 * @param windowMicros       the window as written ({@code /s}: 1,000,000; {@code /5min}: 300,000,000);
 *                           the sliding-log algorithm counts requests in it
 * @param text               how the limit was written, for messages and logs
 * @param calendar           for a calendar quota ({@code 1000/month calendar}), its window: then
 *                           {@code capacity} requests per window, counted from the window's start,
 *                           and the refill fields hold only a nominal rate for display;
 *                           {@code null} for a rate
 */
public record Limit(long capacity, long refillTokens, long refillPeriodMicros, long windowMicros, String text,
                    CalendarWindow calendar) {

    /**
     * The largest {@code capacity * refillPeriodMicros} (with the fraction reduced) that the
     * stores can compute exactly: 2^52, so that twice it still fits the 53-bit integers of a
     * Lua number. It allows, for example, a burst of 52,000 at one token per day.
     */
    public static final long MAX_SCALED_CAPACITY = 1L << 52;

    /** What {@link #parse} accepts, for error messages. */
    public static final String SYNTAX =
            "'<amount>/<unit> [burst <capacity>]', several separated by ';', e.g. '10/s burst 20; 1000/day';"
                    + " <unit> is ms, s, min, h or day, optionally with a count ('100/5min');"
                    + " <amount> may have up to 6 decimals ('0.5/s');"
                    + " or '<amount>/<unit> calendar', <unit> hour, day or month ('1000/month calendar')";

    private static final long MAX_AMOUNT = 1_000_000_000L;

    public Limit {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        if (refillTokens < 1 || refillPeriodMicros < 1) {
            throw new IllegalArgumentException("the refill rate must be positive, got "
                    + refillTokens + " per " + refillPeriodMicros + " µs");
        }
        long gcd = gcd(refillTokens, refillPeriodMicros);
        refillTokens /= gcd;
        refillPeriodMicros /= gcd;
        // a calendar quota only counts: its nominal rate is never computed with
        if (calendar == null && (Math.multiplyHigh(capacity, refillPeriodMicros) != 0
                || capacity * refillPeriodMicros > MAX_SCALED_CAPACITY)) {
            throw new IllegalArgumentException("a burst of " + capacity + " at one token per "
                    + Duration.of(refillPeriodMicros / refillTokens, java.time.temporal.ChronoUnit.MICROS)
                    + " is too large to compute exactly: burst times the time per token must stay"
                    + " below 2^52 µs (about 142 years)");
        }
        if (windowMicros < 1) {
            throw new IllegalArgumentException("the window must be positive, got " + windowMicros + " µs");
        }
        if (text == null || text.isBlank()) {
            text = capacity + " per " + refillPeriodMicros + "µs/" + refillTokens;
        }
    }

    /** A rate limit (no calendar window). */
    public Limit(long capacity, long refillTokens, long refillPeriodMicros, long windowMicros, String text) {
        this(capacity, refillTokens, refillPeriodMicros, windowMicros, text, null);
    }

    /** Whether this is a calendar quota. */
    public boolean isCalendar() {
        return calendar != null;
    }

    /** This limit with its calendar window in {@code zone}; a rate limit is returned as it is. */
    public Limit inZone(java.time.ZoneId zone) {
        return calendar == null ? this
                : new Limit(capacity, refillTokens, refillPeriodMicros, windowMicros, text, calendar.inZone(zone));
    }

    /**
     * Whether this limit is exactly "capacity requests per window" (a whole amount and no other
     * burst), the only form the sliding-log algorithm accepts.
     */
    public boolean isCountPerWindow() {
        return Math.multiplyHigh(capacity, refillPeriodMicros) == 0
                && capacity * refillPeriodMicros == windowMicros * refillTokens;
    }

    /** Builds a limit of {@code tokens} per {@code period} with a burst of {@code capacity}. */
    public static Limit of(long tokens, Duration period, long capacity) {
        long micros = period.toNanos() / 1000;
        if (micros < 1 || period.toNanos() % 1000 != 0) {
            throw new IllegalArgumentException("period must be a positive whole number of microseconds, got " + period);
        }
        return new Limit(capacity, tokens, micros, micros, tokens + "/" + period + " burst " + capacity);
    }

    /**
     * The time one token takes to refill, in microseconds, rounded up. For display; the stores
     * use the exact fraction.
     */
    public long microsPerToken() {
        return ceilDiv(refillPeriodMicros, refillTokens);
    }

    /** The time an empty bucket takes to fill, in microseconds, rounded up. */
    public long microsToFill() {
        return ceilDiv(capacity * refillPeriodMicros, refillTokens);
    }

    /** Tokens per second, for display and for the advertised policy. */
    public double tokensPerSecond() {
        return refillTokens * 1_000_000.0 / refillPeriodMicros;
    }

    @Override
    public String toString() {
        return text;
    }

    private static final Pattern ONE = Pattern.compile(
            "(?<amount>\\d+(?:\\.\\d+)?)\\s*/\\s*(?<count>\\d+)?\\s*(?<unit>[a-z]+)"
                    + "(?:\\s+(?<calendar>calendar))?(?:\\s+burst\\s+(?<burst>\\d+))?(?:\\s+(?<calendar2>calendar))?");

    /**
     * Parses one or more limits separated by {@code ;}.
     *
     * @throws IllegalArgumentException with a message that says what is wrong and what is
     *                                  accepted ({@link #SYNTAX})
     */
    public static List<Limit> parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no limit given");
        }
        List<Limit> limits = new ArrayList<>();
        for (String part : text.split(";")) {
            String one = part.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
            if (one.isEmpty()) {
                continue;
            }
            limits.add(parseOne(one, part.trim()));
        }
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("no limit given");
        }
        return List.copyOf(limits);
    }

    private static Limit parseOne(String one, String original) {
        Matcher m = ONE.matcher(one);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + original + "' is not a limit");
        }
        BigDecimal amount = new BigDecimal(m.group("amount")).stripTrailingZeros();
        if (amount.signum() <= 0) {
            throw new IllegalArgumentException("'" + original + "': the amount must be above zero");
        }
        if (amount.scale() > 6) {
            throw new IllegalArgumentException("'" + original + "': the amount has more than 6 decimals");
        }
        if (amount.compareTo(BigDecimal.valueOf(MAX_AMOUNT)) > 0) {
            throw new IllegalArgumentException("'" + original + "': the amount is above " + MAX_AMOUNT);
        }
        if (m.group("calendar") != null || m.group("calendar2") != null) {
            return calendar(m, amount, original);
        }
        long unitMicros = unitMicros(m.group("unit"), original);
        long count = 1;
        if (m.group("count") != null) {
            count = parsePositive(m.group("count"), "count", original);
        }
        BigInteger unscaled = amount.scale() > 0 ? amount.unscaledValue() : amount.toBigIntegerExact();
        int scale = Math.max(amount.scale(), 0);
        BigInteger period = BigInteger.TEN.pow(scale)
                .multiply(BigInteger.valueOf(count))
                .multiply(BigInteger.valueOf(unitMicros));
        BigInteger g = unscaled.gcd(period);
        unscaled = unscaled.divide(g);
        period = period.divide(g);
        if (period.bitLength() > 62 || unscaled.bitLength() > 62) {
            throw new IllegalArgumentException("'" + original + "': the period is too long");
        }
        long capacity = m.group("burst") != null
                ? parsePositive(m.group("burst"), "burst", original)
                : Math.max(1, amount.setScale(0, RoundingMode.CEILING).longValueExact());
        try {
            return new Limit(capacity, unscaled.longValueExact(), period.longValueExact(),
                    Math.multiplyExact(count, unitMicros), original);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + original + "': " + e.getMessage(), e);
        }
    }

    /** A calendar quota: a whole amount per hour, day or month, no count before the unit, no burst. */
    private static Limit calendar(Matcher m, BigDecimal amount, String original) {
        if (m.group("burst") != null) {
            throw new IllegalArgumentException("'" + original + "': a calendar quota takes no burst (it resets whole"
                    + " at the start of each window); write '<amount>/<hour|day|month> calendar'");
        }
        CalendarWindow.Unit unit = switch (m.group("unit")) {
            case "h", "hour", "hours" -> CalendarWindow.Unit.HOUR;
            case "d", "day", "days" -> CalendarWindow.Unit.DAY;
            case "month", "months" -> CalendarWindow.Unit.MONTH;
            default -> throw new IllegalArgumentException("'" + original + "': a calendar quota's unit is hour, day"
                    + " or month, got '" + m.group("unit") + "'");
        };
        if (m.group("count") != null) {
            throw new IllegalArgumentException("'" + original + "': a calendar window is one hour, day or month;"
                    + " write '<amount>/<hour|day|month> calendar'");
        }
        if (amount.scale() > 0) {
            throw new IllegalArgumentException("'" + original + "': a calendar quota counts whole requests");
        }
        long count = amount.longValueExact();
        return new Limit(count, count, unit.nominalMicros, unit.nominalMicros, original,
                new CalendarWindow(unit, CalendarWindow.DEFAULT_ZONE));
    }

    private static long parsePositive(String digits, String what, String original) {
        try {
            long v = Long.parseLong(digits);
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // too large: reported below
        }
        throw new IllegalArgumentException("'" + original + "': the " + what
                + " must be a whole number from 1 to " + Long.MAX_VALUE + ", got " + digits);
    }

    private static long unitMicros(String unit, String original) {
        switch (unit) {
            case "ms": case "millisecond": case "milliseconds":
                return 1_000L;
            case "s": case "sec": case "second": case "seconds":
                return 1_000_000L;
            case "m": case "min": case "minute": case "minutes":
                return 60_000_000L;
            case "h": case "hour": case "hours":
                return 3_600_000_000L;
            case "d": case "day": case "days":
                return 86_400_000_000L;
            case "month": case "months":
                throw new IllegalArgumentException("'" + original + "': a month is only a calendar window;"
                        + " write '<amount>/month calendar'");
            default:
                throw new IllegalArgumentException("'" + original + "': unknown unit '" + unit
                        + "'; expected ms, s, min, h or day (or hour, day, month with 'calendar')");
        }
    }

    static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
