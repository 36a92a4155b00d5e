package dev.tollgate.internal.bucket;

import dev.tollgate.CalendarWindow;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small exact model of calendar quotas, built from java.time in another way than
 * {@link CalendarWindow}: a window is the set of instants with the same local date (day), the
 * same year and month (month), or the same local date, hour and offset (hour), where a date once
 * begun goes on even if a clock change turns the local date back; it starts at the first
 * microsecond and ends at the first microsecond after it whose window differs, found by search.
 *
 * <p>A key holds, per limit of the call that last took, the window it counted in and its count,
 * then the states of other windows it kept, until the latest of those windows ends. A call (of
 * any limits, zones and units: nodes of two configurations share keys) reads, per limit: the
 * count of the first unclaimed state of its very window; else the largest count of the states
 * whose windows overlap its own, leaving out those other limits claimed unless the key holds
 * fewer states than the call has limits. A count of other windows, not written over, holds until
 * the key's latest window ends; a limit's own count, until its window ends or, when states of
 * other windows outlast it whose counts would refuse the request in the next window, until the
 * last of those ends. A call that takes writes its limits' states, then keeps every
 * state no limit claimed whose window has not ended, charged the cost: each configuration in
 * force counts every admission in its own windows. Not thread-safe.
 */
final class CalendarModel {

    /** One limit of a call: at most {@code capacity} per window of {@code unit} in {@code zone}. */
    record Quota(long capacity, CalendarWindow.Unit unit, ZoneId zone) {
    }

    private record Held(long start, long end, long count) {
    }

    private final Map<String, List<Held>> held = new HashMap<>();

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
        return take(key, List.of(new Quota(capacity, unit, zone)), now, cost);
    }

    /** The same for a call of several limits: four numbers per limit. */
    long[] take(String key, List<Quota> limits, long now, long cost) {
        int m = limits.size();
        List<Held> stored = held.getOrDefault(key, List.of());
        long latest = stored.stream().mapToLong(Held::end).max().orElse(Long.MIN_VALUE);
        if (latest <= now) {
            stored = List.of(); // every window it held has ended: gone
        }
        int k = stored.size();
        long[] starts = new long[m];
        long[] ends = new long[m];
        int[] own = new int[m];
        boolean[] claimed = new boolean[k];
        for (int j = 0; j < m; j++) {
            Quota q = limits.get(j);
            starts[j] = start(q.unit(), q.zone(), now);
            ends[j] = end(q.unit(), q.zone(), now);
            own[j] = -1;
            for (int s = 0; s < k && own[j] < 0; s++) {
                if (!claimed[s] && stored.get(s).start() == starts[j] && stored.get(s).end() == ends[j]) {
                    claimed[s] = true;
                    own[j] = s;
                }
            }
        }
        long[] used = new long[m];
        long[] holds = new long[m];
        boolean admit = true;
        for (int j = 0; j < m; j++) {
            holds[j] = ends[j];
            if (own[j] >= 0) {
                used[j] = stored.get(own[j]).count();
                // a state of another window that outlasts this one and would refuse in the next holds the refusal
                for (int s = 0; s < k; s++) {
                    Held h = stored.get(s);
                    if ((!claimed[s] || k < m) && h.end() > holds[j] && h.count() + cost > limits.get(j).capacity()) {
                        holds[j] = h.end();
                    }
                }
            } else {
                for (int s = 0; s < k; s++) {
                    Held h = stored.get(s);
                    if ((!claimed[s] || k < m) && h.start() < ends[j] && h.end() > starts[j]) {
                        used[j] = Math.max(used[j], h.count());
                    }
                }
                if (used[j] > 0) {
                    holds[j] = latest;
                }
            }
            admit &= used[j] + cost <= limits.get(j).capacity();
        }
        long[] out = new long[4 * m];
        List<Held> written = new ArrayList<>();
        for (int j = 0; j < m; j++) {
            long after = admit ? used[j] + cost : used[j];
            long left = Math.max(1, (admit ? ends[j] : holds[j]) - now);
            long next = after > 0 ? left : 0;
            long capacity = limits.get(j).capacity();
            out[4 * j] = Math.max(0, capacity - after);
            out[4 * j + 1] = next;
            out[4 * j + 2] = next;
            out[4 * j + 3] = used[j] + cost > capacity ? left : 0;
            written.add(new Held(starts[j], ends[j], after));
        }
        for (int s = 0; s < k; s++) {
            Held h = stored.get(s);
            if (!claimed[s] && h.end() > now) {
                written.add(new Held(h.start(), h.end(), h.count() + cost));
            }
        }
        if (admit) {
            held.put(key, written);
        }
        return out;
    }
}
