package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.CalendarWindow;
import dev.tollgate.Limit;
import dev.tollgate.Policy;
import java.time.ZoneId;
import java.util.Map;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Calendar quotas in the configuration: what is read, and what stops start-up with which words. */
class CalendarConfigTest {

    @Test
    void calendarLimitsMakeACalendarPolicyInItsZone() {
        TollgateConfig c = TollgateConfigTest.load(Map.of(
                "tollgate.policy.default.limits", "1000/month calendar; 50/d calendar; 5/hours calendar",
                "tollgate.policy.default.zone", "Europe/Berlin"));
        Policy p = c.policies().get(0);
        assertEquals(Algorithm.CALENDAR, p.algorithm());
        assertEquals(3, p.limits().size());
        assertEquals(new CalendarWindow(CalendarWindow.Unit.MONTH, ZoneId.of("Europe/Berlin")), p.limits().get(0).calendar());
        assertEquals(CalendarWindow.Unit.DAY, p.limits().get(1).calendar().unit());
        assertEquals(CalendarWindow.Unit.HOUR, p.limits().get(2).calendar().unit());
        assertEquals(1000, p.limits().get(0).capacity());
    }

    @Test
    void theZoneIsUtcUnlessSet() {
        Policy p = TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "50/day calendar")).policies().get(0);
        // ZoneId.of("UTC"), not ZoneOffset.UTC: the start-up line then says "zone UTC" as docs/policies.md names it, not "zone Z".
        assertEquals(java.time.ZoneId.of("UTC"), p.limits().get(0).calendar().zone());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "10/day calendar burst 20 | takes no burst",
        "10/day burst 20 calendar | takes no burst",
        "10/min calendar | unit is hour, day or month, got 'min'",
        "10/week calendar | unit is hour, day or month, got 'week'",
        "10/2day calendar | a calendar window is one hour, day or month",
        "0.5/day calendar | counts whole requests",
        "100/month | a month is only a calendar window",
        "10/s; 1000/month calendar | all calendar quotas or all rates",
        "1000/month calendar; 10/s | all calendar quotas or all rates"})
    void aBadCalendarLimitStopsStartUpNamingKeyValueAndWhatIsAccepted(String limits, String why) {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", limits)).getMessage();
        assertTrue(message.contains("tollgate.policy.default.limits"), message);
        assertTrue(message.contains(limits.split(";")[0].trim()), message);
        assertTrue(message.contains(why), message);
        assertTrue(message.contains("<amount>/<unit> calendar"), "says what is accepted: " + message);
    }

    @Test
    void anUnknownZoneStopsStartUp() {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", "50/day calendar",
                "tollgate.policy.default.zone", "Europe/Gotham")).getMessage();
        assertTrue(message.contains("tollgate.policy.default.zone"), message);
        assertTrue(message.contains("Europe/Gotham"), message);
        assertTrue(message.contains(CalendarWindow.ZONE_SYNTAX), message);
    }

    @Test
    void aSlidingLogWithCalendarLimitsStopsStartUp() {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", "50/day calendar",
                "tollgate.policy.default.algorithm", "sliding-log")).getMessage();
        assertTrue(message.contains("all calendar quotas or all rates"), message);
        assertTrue(message.contains("tollgate.policy.default.algorithm is sliding-log"), message);
    }

    @Test
    void planLimitsOfACalendarPolicyAreCalendarQuotasInItsZone() {
        TollgateConfig c = TollgateConfigTest.load(Map.of(
                "tollgate.plans", "pro,free", "tollgate.plan.default", "free",
                "tollgate.policy.default.limits", "1000/month calendar",
                "tollgate.policy.default.limits.pro", "100000/month calendar",
                "tollgate.policy.default.zone", "Asia/Tokyo"));
        Limit pro = c.policies().get(0).planLimits().get("pro").get(0);
        assertEquals(ZoneId.of("Asia/Tokyo"), pro.calendar().zone());
        String message = TollgateConfigTest.problem(Map.of(
                "tollgate.plans", "pro,free", "tollgate.plan.default", "free",
                "tollgate.policy.default.limits", "1000/month calendar",
                "tollgate.policy.default.limits.pro", "50/s")).getMessage();
        assertTrue(message.contains("tollgate.policy.default.limits.pro"), message);
    }

    /** Two nodes in different default zones compute the same windows: only the configured zone counts. */
    @Test
    void theJvmDefaultZoneChangesNoBoundary() {
        CalendarWindow berlin = new CalendarWindow(CalendarWindow.Unit.DAY, ZoneId.of("Europe/Berlin"));
        long now = 1_790_000_000_000_000L;
        TimeZone before = TimeZone.getDefault();
        try {
            TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Kiritimati"));
            long[] there = berlin.boundariesAround(now);
            TimeZone.setDefault(TimeZone.getTimeZone("America/Los_Angeles"));
            assertArrayEquals(there, berlin.boundariesAround(now));
        } finally {
            TimeZone.setDefault(before);
        }
    }
}
