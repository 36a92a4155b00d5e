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

/** {@code concurrency} and {@code concurrency-lease}: read, defaulted, and refused with key, value and what is accepted. */
class ConcurrencyConfigTest {

    @Test
    void aPolicyMayHaveOnlyAConcurrencyLimitWithTheDefaultLease() {
        Policy p = TollgateConfigTest.load(Map.of("tollgate.policy.default.concurrency", "2")).policies().get(0);
        assertTrue(p.limits().isEmpty());
        assertEquals(2, p.concurrency().slots());
        assertEquals(Duration.ofSeconds(60), p.concurrency().lease());
    }

    @Test
    void aPolicyMayHaveBoth() {
        Policy p = TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "10/s",
                "tollgate.policy.default.concurrency", "3", "tollgate.policy.default.concurrency-lease", "90s")).policies().get(0);
        assertEquals(1, p.limits().size());
        assertEquals(3, p.concurrency().slots());
        assertEquals(Duration.ofSeconds(90), p.concurrency().lease());
    }

    @Test
    void withoutConcurrencyThereIsNone() {
        assertNull(TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "10/s")).policies().get(0).concurrency());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0       | it is outside 1..10000",
            "-2      | it is outside 1..10000",
            "two     | it is not a whole number",
            "1.5     | it is not a whole number",
            "10001   | it is outside 1..10000"})
    void aBadConcurrencyStopsStartUpNamingKeyValueAndWhatIsAccepted(String value, String reason) {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.concurrency", value)).getMessage();
        assertTrue(message.contains("tollgate.policy.default.concurrency = '" + value + "'"), message);
        assertTrue(message.contains(reason), message);
        assertTrue(message.contains("a whole number from 1 to 10000"), message);
        assertTrue(!message.contains("tollgate.policy.default.limits"), "no second complaint about limits: " + message);
    }

    @ParameterizedTest
    @CsvSource({"999ms", "0s", "0.5s", "25h", "soon"})
    void aLeaseUnderOneSecondOrOverADayStopsStartUp(String value) {
        String message = TollgateConfigTest.problem(Map.of("tollgate.policy.default.concurrency", "1",
                "tollgate.policy.default.concurrency-lease", value)).getMessage();
        assertTrue(message.contains("tollgate.policy.default.concurrency-lease = '" + value + "'"), message);
        assertTrue(message.contains("from 1s to 24h"), message);
    }
}
