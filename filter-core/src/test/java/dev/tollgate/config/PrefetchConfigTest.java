package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Policy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code prefetch} and {@code prefetch-hold}: off by default, read, and refused with key, value and
 * what is accepted, also where leasing would break a promise (sliding log, calendar quota,
 * concurrency, a burst smaller than the prefetch).
 */
class PrefetchConfigTest {

    @Test
    void leasingIsOffByDefaultAndAHoldAloneIsRefused() {
        assertNull(TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "10/s")).policies().get(0).prefetch());
        // a hold without a prefetch did nothing, silently; now it stops the start naming the key (issue 21)
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", "10/s",
                "tollgate.policy.default.prefetch-hold", "1s")).getMessage();
        org.junit.jupiter.api.Assertions.assertTrue(message.contains("tollgate.policy.default.prefetch-hold = '1s'"), message);
    }

    @Test
    void aPrefetchIsReadWithTheDefaultHoldOrItsOwn() {
        Policy p = TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "20000/s burst 1000",
                "tollgate.policy.default.prefetch", "100")).policies().get(0);
        assertEquals(100, p.prefetch().tokens());
        assertEquals(Duration.ofMillis(200), p.prefetch().hold());
        Policy q = TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "20000/s burst 1000",
                "tollgate.policy.default.prefetch", "100", "tollgate.policy.default.prefetch-hold", "50ms")).policies().get(0);
        assertEquals(Duration.ofMillis(50), q.prefetch().hold());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0       | it is outside 2..10000",
            "1       | it is outside 2..10000",
            "10001   | it is outside 2..10000",
            "many    | it is not a whole number",
            "2.5     | it is not a whole number"})
    void aBadPrefetchStopsStartUpNamingKeyValueAndWhatIsAccepted(String value, String reason) {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", "20000/s burst 20000",
                "tollgate.policy.default.prefetch", value)).getMessage();
        assertTrue(message.contains("tollgate.policy.default.prefetch = '" + value + "'"), message);
        assertTrue(message.contains(reason), message);
        assertTrue(message.contains("a whole number from 2 to 10000"), message);
    }

    @ParameterizedTest
    @CsvSource({"0ms", "500us", "11s", "soon"})
    void aHoldOutsideOneMillisecondToTenSecondsStopsStartUp(String value) {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", "100/s",
                "tollgate.policy.default.prefetch", "10", "tollgate.policy.default.prefetch-hold", value)).getMessage();
        assertTrue(message.contains("tollgate.policy.default.prefetch-hold = '" + value + "'"), message);
        assertTrue(message.contains("from 1ms to 10s"), message);
    }

    @Test
    void aPrefetchLargerThanABurstOfAnyPlanIsRefused() {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", "100/s burst 100",
                "tollgate.policy.default.prefetch", "50", "tollgate.policy.default.prefetch-hold", "1s",
                "tollgate.plans", "free,pro", "tollgate.plan.default", "free",
                "tollgate.policy.default.limits.free", "100/s burst 20")).getMessage();
        assertTrue(message.contains("tollgate.policy.default.prefetch = '50'"), message);
        assertTrue(message.contains("whose burst is 20 (tollgate.policy.default.limits.free)"), message);
        assertTrue(message.contains("a prefetch of at most 20 (the burst, and what the rate refills in"
                + " tollgate.policy.default.prefetch-hold), or a larger burst or longer hold"), message);
    }

    @Test
    void aPrefetchAboveWhatTheRateRefillsInAHoldIsRefused() {
        // 100 every 200 ms is 500/s: a node alone would drain a 100/s bucket for a client sending 1/s
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", "100/s burst 1000",
                "tollgate.policy.default.prefetch", "100")).getMessage();
        assertTrue(message.contains("tollgate.policy.default.prefetch = '100'"), message);
        assertTrue(message.contains("takes more than '100/s burst 1000' refills in that time (20)"), message);
        assertTrue(message.contains("a prefetch of at most 20"), message);
        Policy longer = TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "100/s burst 1000",
                "tollgate.policy.default.prefetch", "100", "tollgate.policy.default.prefetch-hold", "1s")).policies().get(0);
        assertEquals(100, longer.prefetch().tokens(), "a hold of 1 s refills 100");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "tollgate.policy.default.algorithm | sliding-log | 100/s        | a sliding log counts every request",
            "tollgate.policy.default.zone      | UTC         | 1000/day calendar | a calendar quota counts every request",
            "tollgate.policy.default.concurrency | 5         | 100/s        | cannot save the store call that takes a concurrency slot"})
    void leasingWhereItWouldBreakAPromiseIsRefused(String key, String value, String limits, String why) {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.limits", limits, key, value,
                "tollgate.policy.default.prefetch", "10")).getMessage();
        assertTrue(message.contains("tollgate.policy.default.prefetch = '10'"), message);
        assertTrue(message.contains(why), message);
        assertTrue(message.contains("for a token-bucket policy without concurrency"), message);
    }
}
