package dev.tollgate.internal.bucket;

import dev.tollgate.CalendarWindow;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

/**
 * A small exact model of calendar quotas, built from java.time in another way than
 * {@link CalendarWindow}: a window is the set of instants with the same local date (day), the
 * same year and month (month), or the same local date, hour and offset (hour), where a date once
 * begun goes on even if a clock change turns the local date back; it ends at the first
 * microsecond whose window differs and starts just after the last one before it, both found by
 * search. One limit per key. Not thread-safe.
 */
final class CalendarModel {

    private record Held(String window, long count) {
    }

    private final Map<String, Held> held = new HashMap<>();

    static String window(CalendarWindow.Unit unit, ZoneId zone, long micros) {
        Instant at = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
        ZonedDateTime t = at.atZone(zone);
        if (unit == CalendarWindow.Unit.HOUR) {
            return t.toLocalDate() + "T" + t.getHour() + t.getOffset();
        }
        // A calendar never runs back: where a clock change at local midnight turns the date back
        // (St. John's, 2009-11-01 at 00:01), the day or month already begun goes on. So the date is
        // the latest one shown at this instant or just before a transition of the last three hours.
        LocalDate date = t.toLocalDate();
        ZoneOffsetTransition tr = zone.getRules().previousTransition(at.plusNanos(1));
        while (tr != null && tr.getInstant().isAfter(at.minus(Duration.ofHours(3)))) {
            LocalDate before = tr.getInstant().minusNanos(1000).atZone(zone).toLocalDate();
            date = before.isAfter(date) ? before : date;
            tr = zone.getRules().previousTransition(tr.getInstant());
        }
        return unit == CalendarWindow.Unit.MONTH ? date.getYear() + "-" + date.getMonthValue() : date.toString();
    }

    /** The first microsecond after {@code micros} in another window. */
    static long end(CalendarWindow.Unit unit, ZoneId zone, long micros) {
        String w = window(unit, zone, micros);
        long step = 1;
        while (window(unit, zone, micros + step).equals(w)) {
            step *= 2;
        }
        long lo = micros + step / 2; // in w
        long hi = micros + step; // not in w
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (window(unit, zone, mid).equals(w)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    /** The first microsecond of the window that holds {@code micros}. */
    static long start(CalendarWindow.Unit unit, ZoneId zone, long micros) {
        String w = window(unit, zone, micros);
        long step = 1;
        while (window(unit, zone, micros - step).equals(w)) {
            step *= 2;
        }
        long lo = micros - step; // not in w
        long hi = micros - step / 2; // in w
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (window(unit, zone, mid).equals(w)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return hi;
    }

    /** The reply a store owes for a request of {@code cost} at {@code now}: remaining, next, reset, retry. */
    long[] take(String key, long capacity, CalendarWindow.Unit unit, ZoneId zone, long now, long cost) {
        String w = window(unit, zone, now);
        Held h = held.get(key);
        long used = h != null && h.window().equals(w) ? h.count() : 0;
        long wanted = used + cost;
        boolean admit = wanted <= capacity;
        long after = admit ? wanted : used;
        if (admit) {
            held.put(key, new Held(w, after));
        }
        long left = end(unit, zone, now) - now;
        long next = after > 0 ? left : 0;
        return new long[] {Math.max(0, capacity - after), next, next, admit ? 0 : left};
    }
}
