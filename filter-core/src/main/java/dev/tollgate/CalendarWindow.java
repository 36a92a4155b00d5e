package dev.tollgate;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Locale;
import java.util.Objects;

/**
 * The calendar window of a quota ({@code 1000/month calendar}): a fixed window that starts at the
 * beginning of each hour, day or month in {@code zone}. Days are the zone's days (23 or 25 hours
 * across a daylight-saving change), months have their real lengths; hours are the zone's hours,
 * one local hour at one offset, cut short where the offset changes within one.
 * Always computed in the policy's zone, never in the JVM's default one, so every node agrees.
 *
 * <p>Times are epoch microseconds. Immutable and thread-safe.
 *
 * @param unit how long a window is
 * @param zone the zone whose calendar the windows follow
 */
public record CalendarWindow(Unit unit, ZoneId zone) {

    /** The length of a calendar window. */
    public enum Unit {
        HOUR(3_600_000_000L), DAY(86_400_000_000L), MONTH(30 * 86_400_000_000L);

        /** A nominal length for display (the {@code w} of {@code RateLimit-Policy}); windows are real ones. */
        final long nominalMicros;

        Unit(long nominalMicros) {
            this.nominalMicros = nominalMicros;
        }
    }

    /** The zone when {@code tollgate.policy.<name>.zone} is not set. */
    public static final ZoneId DEFAULT_ZONE = ZoneId.of("UTC");

    /** What {@link #parseZone} accepts, for error messages. */
    public static final String ZONE_SYNTAX = "a java.time zone id, e.g. 'UTC', 'Europe/Berlin', 'America/New_York' or '+05:30'";

    public CalendarWindow {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(zone, "zone");
    }

    /** The same windows in another zone. */
    public CalendarWindow inZone(ZoneId other) {
        return new CalendarWindow(unit, other);
    }

    /** The start of the window that contains {@code micros}. */
    public long startMicros(long micros) {
        Instant at = instant(micros);
        return switch (unit) {
            case HOUR -> hourStart(at);
            case DAY -> {
                LocalDate date = at.atZone(zone).toLocalDate();
                yield latestStart(micros, date, date.plusDays(1));
            }
            case MONTH -> {
                LocalDate first = at.atZone(zone).toLocalDate().withDayOfMonth(1);
                yield latestStart(micros, first, first.plusMonths(1));
            }
        };
    }

    /**
     * The start of the hour window that holds {@code at}. An hour window is one local hour at one
     * offset: it starts at the local hour's start at the offset in force, or at the last change of
     * offset if that came later, and ends at the next local hour at that offset, or at the next
     * change if that comes first. So a change of half an hour (Australia/Lord_Howe) or at a quarter
     * to the hour (Pacific/Chatham, +12:45 and +13:45) cuts an hour window short, and the two
     * 02:00 hours of an autumn night are two.
     */
    private long hourStart(Instant at) {
        ZoneRules rules = zone.getRules();
        long hour = micros(at.atOffset(rules.getOffset(at)).truncatedTo(ChronoUnit.HOURS).toInstant());
        ZoneOffsetTransition change = rules.previousTransition(at.plusNanos(1)); // at or before the instant
        return change == null ? hour : Math.max(hour, micros(change.getInstant()));
    }

    /** The end of the hour window that holds {@code at} (see {@link #hourStart}). */
    private long hourEnd(Instant at) {
        ZoneRules rules = zone.getRules();
        long hour = micros(at.atOffset(rules.getOffset(at)).truncatedTo(ChronoUnit.HOURS).plusHours(1).toInstant());
        ZoneOffsetTransition change = rules.nextTransition(at); // after the instant
        return change == null ? hour : Math.min(hour, micros(change.getInstant()));
    }

    /**
     * The start of {@code first}, or of {@code next} when that has already begun: where clocks go
     * back at local midnight (America/Santiago, Asia/Beirut), the local date reads the day before
     * again for an hour, but the day that began at midnight goes on; a window never runs back.
     */
    private long latestStart(long micros, LocalDate first, LocalDate next) {
        long n = micros(next.atStartOfDay(zone).toInstant());
        return n <= micros ? n : micros(first.atStartOfDay(zone).toInstant());
    }

    /** The end of the window that contains {@code micros}: the start of the next one. */
    public long endMicros(long micros) {
        if (unit == Unit.HOUR) {
            return hourEnd(instant(micros));
        }
        LocalDate first = instant(startMicros(micros)).atZone(zone).toLocalDate();
        return micros((unit == Unit.DAY ? first.plusDays(1) : first.plusMonths(1)).atStartOfDay(zone).toInstant());
    }

    /**
     * Four window boundaries around {@code micros}: the starts of the previous, the current and
     * the next window, and the end of the next one. The Redis store passes them to the script,
     * which picks the window that holds Redis' own time: a node's clock may be off by up to a
     * window either way and every node still counts in the same window.
     */
    public long[] boundariesAround(long micros) {
        long current = startMicros(micros);
        long next = endMicros(micros);
        return new long[] {startMicros(current - 1), current, next, endMicros(next)};
    }

    /**
     * Reads a zone id.
     *
     * @throws IllegalArgumentException saying it is not one ({@link #ZONE_SYNTAX} is what is accepted)
     */
    public static ZoneId parseZone(String text) {
        String id = text.trim();
        if (!id.matches("[A-Za-z].*|[+-]\\d{2}:\\d{2}")) {
            // java.time also reads '-1' or '+5' as offsets: too easily a typo to accept
            throw new IllegalArgumentException("it is not a zone id");
        }
        try {
            return ZoneId.of(id);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("it is not a zone id known to java.time");
        }
    }

    @Override
    public String toString() {
        return unit.name().toLowerCase(Locale.ROOT) + " in " + zone.getId();
    }

    private static Instant instant(long micros) {
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    private static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }
}
