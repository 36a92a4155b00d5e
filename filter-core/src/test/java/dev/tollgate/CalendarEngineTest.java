package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestRequest;
import java.time.OffsetDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Calendar quotas through the engine to the answer's headers, over the in-memory store and a clock the test moves. */
class CalendarEngineTest {

    /**
     * Lord Howe turns its clocks back by half an hour at 02:00 +11:00 on 2026-04-05: from 01:30
     * +10:30 to 02:00 +10:30 is an hour window of its own. At 01:45 +10:30 an hourly quota of one
     * admits one request and refuses the next until 02:00 +10:30, 900 s away (it used to admit
     * them all: the window it counted in had ended before the instant, so no count was kept; a
     * client that had spent its 01:00 +11:00 hour was refused with {@code Retry-After: 1} instead).
     */
    @Test
    void aRefusalInTheHalfHourLordHoweRunsTwiceSaysTheSecondsToItsEnd() {
        ManualClock clock = new ManualClock(OffsetDateTime.parse("2026-04-05T01:45+10:30").toEpochSecond() * 1_000_000);
        RateLimiter rl = new RateLimiter(ConcurrencyEngineTest.config("tollgate.policy.default.limits", "1/hour calendar",
                "tollgate.policy.default.zone", "Australia/Lord_Howe"), new LocalStore(10_000, clock::nowMicros), null, System::nanoTime);
        assertTrue(rl.check(TestRequest.get("/x")).allowed());
        for (int i = 0; i < 3; i++) {
            HttpAnswer refused = rl.answer(rl.check(TestRequest.get("/x")));
            assertEquals(429, refused.status(), "request " + (i + 2) + " of an hourly quota of one");
            Map<String, String> h = RateLimiterTest.headers(refused);
            assertEquals(String.valueOf(900 - 60 * i), h.get("Retry-After"), "the seconds to 02:00 +10:30");
            assertEquals("\"default\";r=0;t=" + (900 - 60 * i), h.get("RateLimit"));
            clock.advanceMicros(60_000_000);
        }
    }
}
