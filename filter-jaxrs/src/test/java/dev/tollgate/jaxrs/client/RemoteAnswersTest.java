package dev.tollgate.jaxrs.client;

import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.strings;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** What a remote's answer asks for, field by field; and no header text makes it throw or leave [0, max-pause]. */
class RemoteAnswersTest {

    static final long NOW = 1_790_000_000_000L; // Mon, 21 Sep 2026 14:13:20 GMT
    static final Duration MAX = Duration.ofMinutes(5);

    static RemoteAnswers.Reading read(int status, String... nameValue) {
        Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < nameValue.length; i += 2) {
            h.put(nameValue[i], nameValue[i + 1]);
        }
        return RemoteAnswers.read(status, h::get, NOW, MAX);
    }

    static String httpDate(long millis) {
        return java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                java.time.Instant.ofEpochMilli(millis).atZone(java.time.ZoneOffset.UTC));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "429 | Retry-After | 30                                 | 30000  | false",
            "503 | Retry-After | 0                                  | 0      | false",
            "429 | Retry-After | 301                                | 300000 | true",
            "429 | Retry-After | -1                                 | 300000 | true",
            "429 | Retry-After | 1e3                                | 300000 | true",
            "429 | Retry-After | Thu, 01 Jan 1970 00:00:00 GMT      | 0      | false",
            "200 | RateLimit   | '\"default\";r=0;t=12'             | 12000  | false",
            "200 | RateLimit   | '\"a\";r=3;t=1, \"b\";r=0;t=40'    | 40000  | false",
            "429 | RateLimit   | 'limit=10, remaining=0, reset=8'   | 8000   | false",
            "200 | RateLimit   | '\"x\";r=0;t=999999'               | 300000 | true"})
    void readsTheRemotesFields(int status, String name, String value, long millis, boolean clamped) {
        RemoteAnswers.Reading r = read(status, name, value);
        assertEquals(Duration.ofMillis(millis), r.pause());
        assertEquals(clamped, r.absurd() != null, String.valueOf(r.absurd()));
    }

    @org.junit.jupiter.api.Test
    void anHttpDateCountsFromNowAndTheLongestSignalWins() {
        assertEquals(Duration.ofSeconds(90), read(503, "Retry-After", httpDate(NOW + 90_000)).pause());
        // NOW is Monday, 21 Sep 2026 14:13:20 GMT; the obsolete forms a recipient must read too
        assertEquals(Duration.ofSeconds(100), read(429, "Retry-After", "Monday, 21-Sep-26 14:15:00 GMT").pause());
        assertEquals(Duration.ofSeconds(100), read(429, "Retry-After", "Mon Sep 21 14:15:00 2026").pause());
        assertEquals(Duration.ofSeconds(20), read(429, "Retry-After", "5", "RateLimit", "\"d\";r=0;t=20").pause());
        assertEquals(Duration.ofSeconds(9), read(200, "RateLimit", "\"d\";r=0", "RateLimit-Policy", "\"d\";q=100;w=9").pause(),
                "no t: the policy's window");
        assertEquals(Duration.ofSeconds(4), read(200, "RateLimit-Remaining", "0", "RateLimit-Reset", "4").pause());
        assertEquals(Duration.ofSeconds(42), read(200, "X-RateLimit-Remaining", "0",
                "X-RateLimit-Reset", Long.toString(NOW / 1000 + 42)).pause(), "GitHub's epoch seconds");
        assertEquals(Duration.ofSeconds(3), read(403, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "3").pause());
    }

    @org.junit.jupiter.api.Test
    void answersThatAskForNothing() {
        assertNull(read(200));
        assertNull(read(200, "Retry-After", "30"), "Retry-After only counts on a refusal");
        assertNull(read(200, "RateLimit", "\"d\";r=1;t=30"));
        assertNull(read(200, "RateLimit", "\"d\";r=0;t=soon"));
        assertNull(read(200, "X-RateLimit-Remaining", "5", "X-RateLimit-Reset", "30"));
    }

    /** The texts of the five headers a remote's answer is read from. */
    record Headers(String retryAfter, String rateLimit, String policy, String remaining, String reset) {
    }

    @org.junit.jupiter.api.Test
    void noHeaderTextThrowsOrLeavesZeroToMaxPause() {
        qt(2000).forAll(statuses(), headers()).checkAssert(this::noHeaderTextThrowsOrLeavesZeroToMaxPause);
    }

    private void noHeaderTextThrowsOrLeavesZeroToMaxPause(int status, Headers h) {
        RemoteAnswers.Reading r = read(status, "Retry-After", h.retryAfter(), "RateLimit", h.rateLimit(), "RateLimit-Policy", h.policy(),
                "X-RateLimit-Remaining", h.remaining(), "X-RateLimit-Reset", h.reset());
        if (r != null) {
            assertTrue(!r.pause().isNegative() && r.pause().compareTo(MAX) <= 0, r.toString());
        }
    }

    static Gen<Integer> statuses() {
        return of(200, 403, 429, 503);
    }

    static Gen<Headers> headers() {
        return texts().zip(texts(), texts(), texts(), texts(), Headers::new);
    }

    static Gen<String> texts() {
        Gen<String> any = lists(Generate.characters(Character.MIN_VALUE, Character.MAX_VALUE), 0, 40).map(chars -> {
            StringBuilder text = new StringBuilder(chars.size());
            chars.forEach(text::append);
            return text.toString();
        });
        return Generate.oneOf(
                any,
                strings("0123456789-;=,\"\\ rtwq", 0, 30),
                of("0", "\"d\";r=0;t=", "-0", "99999999999999999999999", "Tue, 31 Feb 2026 25:61:00 GMT"),
                strings("0123456789", 60, 5000));
    }
}
