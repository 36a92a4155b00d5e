package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.HttpAnswer.Header;
import dev.tollgate.Policy;
import dev.tollgate.Refusal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code refusal-status}, {@code -type}, {@code -title}, {@code -headers}: read, defaulted, refused with key, value and what is accepted. */
class RefusalConfigTest {

    static Map<String, String> with(String key, String value) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.policy.default.limits", "10/s");
        m.put("tollgate.policy.default." + key, value);
        return m;
    }

    @Test
    void unsetIsTheStandardAnswer() {
        Policy p = TollgateConfigTest.load(Map.of("tollgate.policy.default.limits", "10/s")).policies().get(0);
        assertEquals(Refusal.STANDARD, p.refusal());
        assertTrue(p.refusal().isStandard());
    }

    @Test
    void allFourAreRead() {
        Map<String, String> m = with("refusal-status", "503");
        m.put("tollgate.policy.default.refusal-type", "https://example.com/problems/quota");
        m.put("tollgate.policy.default.refusal-title", "Quota used up");
        m.put("tollgate.policy.default.refusal-headers", "X-Reason: quota; Cache-Control: no-store, private;");
        Refusal r = TollgateConfigTest.load(m).policies().get(0).refusal();
        assertEquals(new Refusal(503, "https://example.com/problems/quota", "Quota used up",
                List.of(new Header("X-Reason", "quota"), new Header("Cache-Control", "no-store, private"))), r);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "refusal-status  | 200        | it is outside 400..599  | a whole number from 400 to 599",
            "refusal-status  | 399        | it is outside 400..599  | a whole number from 400 to 599",
            "refusal-status  | 600        | it is outside 400..599  | a whole number from 400 to 599",
            "refusal-status  | busy       | it is not a whole number | a whole number from 400 to 599",
            "refusal-type    | /problems/quota | not an absolute URI | an absolute URI",
            "refusal-type    | https://x/a b   | not a URI           | an absolute URI",
            "refusal-headers | X-Reason        | has no ':'          | 'Name: value' pairs",
            "refusal-headers | X Reason: quota | is not a header name | 'Name: value' pairs",
            "refusal-headers | Retry-After: 9  | a header Tollgate writes itself | 'Name: value' pairs",
            "refusal-headers | Content-Type: text/plain | a header Tollgate writes itself | 'Name: value' pairs",
            "refusal-headers | X-RateLimit-Limit: 1 | a header Tollgate writes itself | 'Name: value' pairs",
            "refusal-headers | 'X-Reason:; X-B: 1' | the value of 'X-Reason' is empty | 'Name: value' pairs"})
    void aBadValueStopsStartUpNamingKeyValueAndWhatIsAccepted(String key, String value, String reason, String accepted) {
        String message = TollgateConfigTest.problem(with(key, value)).getMessage();
        assertTrue(message.contains("tollgate.policy.default." + key + " = '" + value + "'"), message);
        assertTrue(message.contains(reason), message);
        assertTrue(message.contains("Accepted: " + accepted), message);
    }

    @Test
    void aCarriageReturnOrLineFeedInAHeaderValueStopsStartUp() {
        for (String value : List.of("X-Reason: quota\r\nSet-Cookie: a=b", "X-Reason: quo\nta", "X-Rea\rson: quota")) {
            String message = TollgateConfigTest.problem(with("refusal-headers", value)).getMessage();
            assertTrue(message.contains("tollgate.policy.default.refusal-headers = '"), message);
            assertTrue(message.contains("Accepted: 'Name: value' pairs"), message);
            assertTrue(!message.contains("\r") && !message.contains("\n"), "no raw CR/LF in the message: " + message);
        }
    }

    @Test
    void aTitleWithAControlCharacterOrTooLongStopsStartUp() {
        for (String value : List.of("Quota\u0007used", "x".repeat(201))) {
            String message = TollgateConfigTest.problem(with("refusal-title", value)).getMessage();
            assertTrue(message.contains("tollgate.policy.default.refusal-title = '"), message);
            assertTrue(message.contains("Accepted: 1 to 200 characters, no control character"), message);
        }
    }
}
