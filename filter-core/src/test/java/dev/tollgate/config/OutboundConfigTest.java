package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Outbound;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code max-wait} and {@code max-pause}: read, defaulted, refused with key, value and what is accepted. */
class OutboundConfigTest {

    @Test
    void unsetIsTheDefaultAndTheDefaultIsWhatSettingsSays() {
        Outbound o = TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "10/s")).policies().get(0).outbound();
        assertEquals(Outbound.DEFAULT, o);
        assertEquals(Settings.POLICY_MAX_WAIT.defaultValue(), Outbound.DEFAULT.maxWait());
        assertEquals(Settings.POLICY_MAX_PAUSE.defaultValue(), Outbound.DEFAULT.maxPause());
    }

    @Test
    void bothAreRead() {
        Map<String, String> m = RefusalConfigTest.with("max-wait", "0s");
        m.put("tollgate.policy.default.max-pause", "1h");
        Outbound o = TollgateConfigTest.load(m).policies().get(0).outbound();
        assertEquals(new Outbound(Duration.ZERO, Duration.ofHours(1)), o);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "max-wait  | -1s   | from 0s to 10min",
            "max-wait  | 11min | from 0s to 10min",
            "max-wait  | soon  | from 0s to 10min",
            "max-pause | 0s    | from 1s to 24h",
            "max-pause | 2d    | from 1s to 24h",
            "max-pause | 10    | from 1s to 24h"})
    void aBadValueStopsStartUpNamingKeyValueAndWhatIsAccepted(String key, String value, String accepted) {
        String message = TollgateConfigTest.problem(RefusalConfigTest.with(key, value)).getMessage();
        assertTrue(message.contains("tollgate.policy.default." + key + " = '" + value + "'"), message);
        assertTrue(message.contains("Accepted: " + accepted), message);
    }
}
