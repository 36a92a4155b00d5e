package dev.tollgate.internal.bucket;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.CalendarWindow;
import dev.tollgate.Limit;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.Tally;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.Arrays;
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

    /**
     * Zones whose clocks move by an hour, by half an hour (Australia/Lord_Howe) or at an offset of
     * 45 minutes (Pacific/Chatham), at midnight (America/Santiago, Asia/Beirut) or just after it
     * (America/St_Johns, 2009), or never.
     */
    static Gen<ZoneId> zones() {
        return of("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney",
                "Pacific/Chatham", "America/Sao_Paulo", "Asia/Tokyo", "America/St_Johns", "America/Santiago", "Asia/Beirut",
                "Australia/Lord_Howe").map(z -> ZoneId.of(z));
    }

    /** 2000 to 2040, in µs. */
    private static final long FROM = 946_684_800_000_000L;
    private static final long TO = 2_208_988_800_000_000L;
    /** 1900, in µs: before it, the date of Alaska's zones ran back a whole day in 1867, which no quota meets. */
    private static final long FROM_1900 = -2_208_988_800_000_000L;
    private static final long HOUR = 3_600_000_000L;

    /** An instant in a zone. */
    record Moment(ZoneId zone, long micros) {
        @Override
        public String toString() {
            return micros + " (" + Instant.EPOCH.plus(micros, ChronoUnit.MICROS).atZone(zone) + ")";
        }
    }

    /**
     * Instants of {@code zones} from {@code from} to {@code to} µs, most within an hour of one of
     * the zone's clock changes (a quarter of those within a second of it), where windows are cut
     * short or run twice; the rest anywhere. A zone without a change after the instant keeps it.
     */
    static Gen<Moment> moments(Gen<ZoneId> zones, long from, long to) {
        Gen<Long> offsets = frequency(weight(1, longs(-1_000_000, 1_000_000)), weight(3, longs(-HOUR, HOUR)));
        Gen<Boolean> near = frequency(weight(4, just(true)), weight(1, just(false)));
        return zones.zip(longs(from, to), near, offsets, (zone, micros, close, offset) -> {
            ZoneOffsetTransition next = zone.getRules().nextTransition(Instant.EPOCH.plus(micros, ChronoUnit.MICROS));
            return new Moment(zone, close && next != null && next.getInstant().getEpochSecond() < to / 1_000_000
                    ? next.getInstant().getEpochSecond() * 1_000_000 + offset : micros);
        });
    }

    /** {@link #zones()}, half the time one whose clock changes cut hours short: Lord Howe's or Chatham's. */
    static Gen<Moment> moments() {
        Gen<ZoneId> cutting = of("Australia/Lord_Howe", "Pacific/Chatham").map(z -> ZoneId.of(z));
        return moments(frequency(weight(1, zones()), weight(1, cutting)), FROM, TO);
    }

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
        Tally tally = new Tally();
        qt(2000).forAll(moments(), units()).checkAssert((m, unit) -> {
            tallyWindow(tally, m, unit);
            windowsAreTheModelsWindows(m.zone(), unit, m.micros());
        });
        System.out.println("windowsAreTheModelsWindows: " + tally);
        tally.atLeast("an hour cut short by a clock change", 2);
        tally.reached("an hour cut short by Lord Howe's half-hour change");
        tally.reached("an hour cut short by Chatham's change at :45");
        tally.reached("a day of 23 or 25 hours");
    }

    /** Counts which kinds of window the example fell in, by the model. */
    private static void tallyWindow(Tally tally, Moment m, CalendarWindow.Unit unit) {
        long start = CalendarModel.start(unit, m.zone(), m.micros());
        long length = CalendarModel.end(unit, m.zone(), m.micros()) - start;
        boolean hour = unit == CalendarWindow.Unit.HOUR;
        boolean cut = hour && length != HOUR;
        tally.count("an hour cut short by a clock change", cut);
        tally.count("an hour cut short by Lord Howe's half-hour change", cut && m.zone().getId().equals("Australia/Lord_Howe"));
        tally.count("an hour cut short by Chatham's change at :45", cut && m.zone().getId().equals("Pacific/Chatham"));
        tally.count("a day of 23 or 25 hours", unit == CalendarWindow.Unit.DAY && length != 24 * HOUR);
    }

    /**
     * Where the clocks move by half an hour (Lord Howe), at a quarter to the hour (Chatham, at
     * +12:45 and +13:45) or at a minute past it (St. John's until 2011), an hour window is cut at
     * the change: it starts or ends there, never where truncating the local time to the hour puts
     * it (the window used to end before the instant or start after it, so the in-memory store
     * kept no count or said retry in 1 µs).
     */
    @Test
    void anHourCutByAClockChangeOffTheHourEndsOrStartsAtTheChange() {
        // Lord Howe, 2026-04-05: at 02:00 +11:00 the clocks go back to 01:30 +10:30
        hourWindow("Australia/Lord_Howe", "2026-04-05T01:45+10:30", "2026-04-05T01:30+10:30", "2026-04-05T02:00+10:30");
        hourWindow("Australia/Lord_Howe", "2026-04-05T01:45+11:00", "2026-04-05T01:00+11:00", "2026-04-05T02:00+11:00");
        // Lord Howe, 2026-10-04: at 02:00 +10:30 they go forward to 02:30 +11:00
        hourWindow("Australia/Lord_Howe", "2026-10-04T02:45+11:00", "2026-10-04T02:30+11:00", "2026-10-04T03:00+11:00");
        // Chatham, 2026-04-05: at 03:45 +13:45 the clocks go back to 02:45 +12:45
        hourWindow("Pacific/Chatham", "2026-04-05T02:50+12:45", "2026-04-05T02:45+12:45", "2026-04-05T03:00+12:45");
        hourWindow("Pacific/Chatham", "2026-04-05T03:10+12:45", "2026-04-05T03:00+12:45", "2026-04-05T04:00+12:45");
        hourWindow("Pacific/Chatham", "2026-04-05T03:30+13:45", "2026-04-05T03:00+13:45", "2026-04-05T03:45+13:45");
        // Chatham, 2026-09-27: at 02:45 +12:45 they go forward to 03:45 +13:45
        hourWindow("Pacific/Chatham", "2026-09-27T02:30+12:45", "2026-09-27T02:00+12:45", "2026-09-27T03:45+13:45");
        hourWindow("Pacific/Chatham", "2026-09-27T03:50+13:45", "2026-09-27T03:45+13:45", "2026-09-27T04:00+13:45");
        // St. John's, 2009-03-08: at 00:01 -03:30 the clocks went forward to 01:01 -02:30
        hourWindow("America/St_Johns", "2009-03-08T01:30-02:30", "2009-03-08T01:01-02:30", "2009-03-08T02:00-02:30");
        // and on 2009-11-01 at 00:01 -02:30 back to 23:01 -03:30 on 31 October: a one-minute hour, then 59 minutes
        hourWindow("America/St_Johns", "2009-11-01T00:00:30-02:30", "2009-11-01T00:00-02:30", "2009-11-01T00:01-02:30");
        hourWindow("America/St_Johns", "2009-10-31T23:30-03:30", "2009-10-31T23:01-03:30", "2009-11-01T00:00-03:30");
    }

    private void hourWindow(String zone, String at, String start, String end) {
        long micros = OffsetDateTime.parse(at).toEpochSecond() * 1_000_000;
        CalendarWindow w = new CalendarWindow(CalendarWindow.Unit.HOUR, ZoneId.of(zone));
        assertEquals(OffsetDateTime.parse(start).toInstant(), Instant.EPOCH.plus(w.startMicros(micros), ChronoUnit.MICROS),
                "the start of the hour window of " + at + " in " + zone);
        assertEquals(OffsetDateTime.parse(end).toInstant(), Instant.EPOCH.plus(w.endMicros(micros), ChronoUnit.MICROS),
                "the end of the hour window of " + at + " in " + zone);
        windowsAreTheModelsWindows(ZoneId.of(zone), CalendarWindow.Unit.HOUR, micros);
    }

    /**
     * Every zone java.time knows, around its clock changes since 1900: the windows of every unit
     * are the model's, whatever the zone's offsets and wherever its changes fall (local mean
     * times a few minutes and seconds off the hour, Caracas at -04:30 in 2007, Pyongyang at +08:30
     * in 2015, Samoa's lost day in 2011).
     */
    @Test
    void everyZonesWindowsAroundItsClockChangesAreTheModels() {
        List<ZoneId> all = ZoneId.getAvailableZoneIds().stream().sorted().map(ZoneId::of).toList();
        Tally tally = new Tally();
        qt(3000).forAll(moments(of(all), FROM_1900, TO), units()).checkAssert((m, unit) -> {
            tallyWindow(tally, m, unit);
            windowsAreTheModelsWindows(m.zone(), unit, m.micros());
        });
        System.out.println("everyZonesWindowsAroundItsClockChangesAreTheModels: " + tally);
        tally.reached("an hour cut short by a clock change");
    }

    static Gen<CalendarWindow.Unit> units() {
        return Generate.enumValues(CalendarWindow.Unit.class);
    }

    private void windowsAreTheModelsWindows(ZoneId zone, CalendarWindow.Unit unit, long micros) {
        CalendarWindow w = new CalendarWindow(unit, zone);
        long start = w.startMicros(micros);
        long end = w.endMicros(micros);
        String window = CalendarModel.window(unit, zone, micros);
        assertTrue(start <= micros && micros < end, () -> "the window [" + start + ", " + end + ") holds " + micros);
        assertEquals(window, CalendarModel.window(unit, zone, start), "the start is in the window");
        assertEquals(end, CalendarModel.end(unit, zone, micros), "the end is the model's");
        assertTrue(!CalendarModel.window(unit, zone, start - 1).equals(window), "the start is the first µs of the window");
        long[] b = w.boundariesAround(micros);
        assertTrue(b[0] < b[1] && b[1] < b[2] && b[2] < b[3], () -> "boundaries strictly increasing: " + Arrays.toString(b));
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
        return moments().zip(units(), ints(1, 5), (m, unit, capacity) -> new Quota(m.zone(), unit, capacity, m.micros()));
    }

    @Test
    void theInMemoryStoreAgreesWithTheModel() {
        Tally tally = new Tally();
        qt(300).forAll(quotas(), steps()).checkAssert((q, steps) ->
                theInMemoryStoreAgreesWithTheModel(q.zone(), q.unit(), q.capacity(), q.start(), steps, tally));
        System.out.println("theInMemoryStoreAgreesWithTheModel: " + tally);
        tally.atLeast("a request in an hour cut short by a clock change", 2);
        tally.reached("a refusal in an hour cut short by a clock change");
    }

    private void theInMemoryStoreAgreesWithTheModel(ZoneId zone, CalendarWindow.Unit unit, int capacity, long start,
                                                    List<Step> steps, Tally tally) {
        boolean inACutHour = false;
        boolean refusedInACutHour = false;
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
            long[] actual = Replies.flat(store.acquire(List.of(BucketRequest.take("k", limits, s.cost(), true, Algorithm.CALENDAR))));
            assertArrayEquals(expected, actual, "at " + clock.get());
            boolean cut = unit == CalendarWindow.Unit.HOUR
                    && CalendarModel.end(unit, zone, clock.get()) - CalendarModel.start(unit, zone, clock.get()) != HOUR;
            inACutHour |= cut;
            refusedInACutHour |= cut && expected[3] > 0;
        }
        tally.count("a request in an hour cut short by a clock change", inACutHour);
        tally.count("a refusal in an hour cut short by a clock change", refusedInACutHour);
    }
}
