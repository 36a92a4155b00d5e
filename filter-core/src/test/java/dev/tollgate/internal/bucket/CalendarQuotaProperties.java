package dev.tollgate.internal.bucket;

import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.CalendarWindow;
import dev.tollgate.Limit;
import dev.tollgate.internal.local.LocalStore;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Calendar quotas as properties against {@link CalendarModel}, a model of windows built from
 * java.time another way: the windows {@link CalendarWindow} computes, and the in-memory store's
 * every answer over generated steps in time (many of them landing on a boundary or one µs
 * before it). The same model holds the Redis store in {@code RedisStoreCalendarIT}.
 */
class CalendarQuotaProperties {

    static Gen<ZoneId> zones() {
        return of("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney",
                "Pacific/Chatham", "America/Sao_Paulo", "Asia/Tokyo", "America/St_Johns", "America/Santiago", "Asia/Beirut").map(z -> ZoneId.of(z));
    }

    /** 2000 to 2040, in µs. */
    private static final long FROM = 946_684_800_000_000L;
    private static final long TO = 2_208_988_800_000_000L;

    /**
     * Found by the property below: in St. John's the clocks went back at 00:01 on 2009-11-01, so
     * the local date read 31 October again for an hour. November had begun at 00:00 and goes on
     * (the window used to start on 31 October and end before the instant; Santiago and Beirut turn
     * their clocks back at midnight today). The same for the day.
     */
    @Test
    void aMonthBegunBeforeAClockChangeTurnsTheDateBackGoesOn() {
        windowsAreTheModelsWindows(ZoneId.of("America/St_Johns"), CalendarWindow.Unit.MONTH, 1_257_046_200_000_000L);
        windowsAreTheModelsWindows(ZoneId.of("America/St_Johns"), CalendarWindow.Unit.DAY, 1_257_043_000_000_000L);
        windowsAreTheModelsWindows(ZoneId.of("America/Santiago"), CalendarWindow.Unit.DAY, 1_775_358_000_000_000L);
    }

    @Test
    void windowsAreTheModelsWindows() {
        qt(2000).forAll(zones(), units(), longs(FROM, TO)).checkAssert(this::windowsAreTheModelsWindows);
    }

    static Gen<CalendarWindow.Unit> units() {
        return Generate.enumValues(CalendarWindow.Unit.class);
    }

    private void windowsAreTheModelsWindows(ZoneId zone, CalendarWindow.Unit unit, long micros) {
        CalendarWindow w = new CalendarWindow(unit, zone);
        long start = w.startMicros(micros);
        long end = w.endMicros(micros);
        String window = CalendarModel.window(unit, zone, micros);
        assertTrue(start <= micros && micros < end);
        assertEquals(window, CalendarModel.window(unit, zone, start), "the start is in the window");
        assertEquals(end, CalendarModel.end(unit, zone, micros), "the end is the model's");
        assertTrue(!CalendarModel.window(unit, zone, start - 1).equals(window), "the start is the first µs of the window");
        long[] b = w.boundariesAround(micros);
        assertEquals(start, b[1]);
        assertEquals(end, b[2]);
        assertEquals(start, CalendarModel.end(unit, zone, b[0]), "the previous window ends where this one starts");
        assertEquals(b[3], CalendarModel.end(unit, zone, end), "the next window ends at the last boundary");
    }

    /** One step: how far time moves before the request (0: to the next boundary, 1: to one µs before it), and its cost. */
    record Step(int how, long micros, long cost) {
    }

    static Gen<List<Step>> steps() {
        Gen<Step> step = ints(0, 3).zip(longs(0, 40L * 86_400_000_000L), longs(1, 3), Step::new);
        return lists(step, 1, 40);
    }

    /** A calendar quota of {@code capacity} per {@code unit} in {@code zone}, and the time the steps start from. */
    record Quota(ZoneId zone, CalendarWindow.Unit unit, int capacity, long start) {
    }

    static Gen<Quota> quotas() {
        return zones().zip(units(), ints(1, 5), longs(FROM, TO), Quota::new);
    }

    @Test
    void theInMemoryStoreAgreesWithTheModel() {
        qt(300).forAll(quotas(), steps()).checkAssert((q, steps) ->
                theInMemoryStoreAgreesWithTheModel(q.zone(), q.unit(), q.capacity(), q.start(), steps));
    }

    private void theInMemoryStoreAgreesWithTheModel(ZoneId zone, CalendarWindow.Unit unit, int capacity, long start,
                                                    List<Step> steps) {
        AtomicLong clock = new AtomicLong(start);
        LocalStore store = new LocalStore(1_000, clock::get);
        CalendarModel model = new CalendarModel();
        List<Limit> limits = Limit.parse(capacity + "/" + unit.name().toLowerCase() + " calendar").stream()
                .map(l -> l.inZone(zone)).toList();
        for (Step s : steps) {
            long now = clock.get();
            long end = CalendarModel.end(unit, zone, now);
            switch (s.how()) {
                case 0 -> clock.set(end);
                case 1 -> clock.set(end - 1);
                case 2 -> clock.addAndGet(s.micros() % 5_000_000);
                default -> clock.addAndGet(s.micros());
            }
            long[] expected = model.take("k", capacity, unit, zone, clock.get(), s.cost());
            long[] actual = Replies.flat(store.acquire(List.of(new BucketRequest("k", limits, s.cost(), true, Algorithm.CALENDAR))));
            assertArrayEquals(expected, actual, "at " + clock.get());
        }
    }
}
