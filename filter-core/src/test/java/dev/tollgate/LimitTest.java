package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LimitTest {

    @ParameterizedTest(name = "{0} -> burst {1}, {2} tokens per {3} µs")
    @CsvSource(delimiter = '|', value = {
        "10/s burst 20      | 20 | 1     | 100000",
        "5/min              | 5  | 1     | 12000000",
        "1000/day           | 1000 | 1   | 86400000",
        "0.5/s burst 3      | 3  | 1     | 2000000",
        "0.2/s              | 1  | 1     | 5000000",
        "1/day              | 1  | 1     | 86400000000",
        "20000/s            | 20000 | 1  | 50",
        "3/s                | 3  | 3     | 1000000",
        "30000/s burst 100  | 100 | 3    | 100",
        "7/min              | 7  | 7     | 60000000",
        "100/5min           | 100 | 1    | 3000000",
        "2.5/h burst 4      | 4  | 1     | 1440000000",
        "1 / second BURST 2 | 2  | 1     | 1000000",
        "250/ms             | 250 | 1    | 4",
    })
    void parsesExactRates(String text, long capacity, long tokens, long periodMicros) {
        Limit l = Limit.parse(text).get(0);
        assertEquals(capacity, l.capacity());
        assertEquals(tokens, l.refillTokens());
        assertEquals(periodMicros, l.refillPeriodMicros());
    }

    @Test
    void parsesSeveralLimits() {
        List<Limit> limits = Limit.parse("10/s burst 20; 1000/day ;");
        assertEquals(2, limits.size());
        assertEquals(20, limits.get(0).capacity());
        assertEquals(1000, limits.get(1).capacity());
        assertEquals("10/s burst 20", limits.get(0).toString());
    }

    @Test
    void derivedTimesAreExactWhereTheyCanBe() {
        Limit l = Limit.parse("10/s burst 20").get(0);
        assertEquals(100_000, l.microsPerToken());
        assertEquals(2_000_000, l.microsToFill());
        assertEquals(10.0, l.tokensPerSecond());
        Limit third = Limit.parse("3/s").get(0);
        assertEquals(333_334, third.microsPerToken()); // rounded up for display only
        assertEquals(1_000_000, third.microsToFill());
    }

    @Test
    void theFactoryReducesTheFraction() {
        Limit l = Limit.of(20, Duration.ofSeconds(2), 20);
        assertEquals(1, l.refillTokens());
        assertEquals(100_000, l.refillPeriodMicros());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "10", "10/x", "ten/s", "-1/s", "0/s", "0.0/s", "10/s burst 0", "10/s burst -3",
        "10/s burst", "10 burst 20", "1.1234567/s", "10/0s", "10/s burst 99999999999999999999",
        "2000000000/s", "1/day burst 100000", "10/s; ; x"})
    void refusesWhatItCannotComputeWithAClearMessage(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Limit.parse(text));
        assertTrue(e.getMessage() != null && e.getMessage().length() > 10, e.getMessage());
    }

    @Test
    void messagesSayWhatIsAccepted() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Limit.parse("10/fortnight"));
        assertTrue(e.getMessage().contains("unknown unit 'fortnight'"), e.getMessage());
        assertTrue(e.getMessage().contains("ms, s, min, h or day"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Limit.parse("lots"));
        assertTrue(e.getMessage().contains("'lots' is not a limit"), e.getMessage());
        assertTrue(Limit.SYNTAX.contains("10/s burst 20"), "what is accepted is public, for the caller's message");
    }

    @Test
    void theLargestExactBucketIsAccepted() {
        // 52,000 tokens at one per day: 52,000 * 86,400,000,000 µs < 2^52
        Limit l = Limit.parse("1/day burst 52000").get(0);
        assertTrue(l.capacity() * l.refillPeriodMicros() <= Limit.MAX_SCALED_CAPACITY);
    }
}
