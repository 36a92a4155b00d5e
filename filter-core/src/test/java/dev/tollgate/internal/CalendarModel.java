package dev.tollgate.internal;

import dev.tollgate.CalendarWindow;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

/**
 * A small exact model of calendar quotas, built from java.time in another way than
 * {@link CalendarWindow}: a window is the set of instants with the same local date (day), the
 * same year and month (month), or the same local date, hour and offset (hour); it ends at the
 * first microsecond whose window differs, found by search. One limit per key. Not thread-safe.
 */
final class CalendarModel {

    private record Held(String window, long count) {
    }

    private final Map<String, Held> held = new HashMap<>();

    static String window(CalendarWindow.Unit unit, ZoneId zone, long micros) {
        ZonedDateTime t = Instant.EPOCH.plus(micros, ChronoUnit.MICROS).atZone(zone);
        return switch (unit) {
            case MONTH -> t.getYear() + "-" + t.getMonthValue();
            case DAY -> t.toLocalDate().toString();
            case HOUR -> t.toLocalDate() + "T" + t.getHour() + t.getOffset();
        };
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
