package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.RequestMatcher;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DenialLogTest {

    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Limit limit = Limit.parse("1/s").get(0);
    final Policy policy = Policy.of("default", List.of(limit), r -> null, RequestMatcher.ALL);

    PolicyResult refusal(String client, long retryMicros) {
        return new PolicyResult(policy, client, null, List.of(new LimitState(limit, 0, retryMicros, retryMicros, retryMicros)));
    }

    @Test
    void oneLinePerClientPerRefusalWindow() {
        DenialLog log = new DenialLog(nanos::get);
        assertTrue(log.first(refusal("a", 1_000_000)));
        assertFalse(log.first(refusal("a", 1_000_000)), "inside the window");
        nanos.addAndGet(1_000_000_000L);
        assertTrue(log.first(refusal("a", 1_000_000)), "a new window");
    }

    /** A full log is swept at most every 100 ms: a flood of refused clients cannot make every refusal walk the map. */
    @Test
    void aFullLogIsSweptAtMostEveryHundredMilliseconds() {
        DenialLog log = new DenialLog(nanos::get);
        for (int i = 0; i < DenialLog.MAX; i++) {
            assertTrue(log.first(refusal("c" + i, 10_000)));
        }
        nanos.addAndGet(20_000_000L); // every window has ended
        assertTrue(log.first(refusal("new-1", 10_000)), "the first sweep makes room");
        for (int i = 0; i < DenialLog.MAX - 1; i++) {
            log.first(refusal("d" + i, 10_000));
        }
        nanos.addAndGet(20_000_000L);
        assertFalse(log.first(refusal("new-2", 10_000)), "full again, and the last sweep was 20 ms ago: not logged");
        nanos.addAndGet(100_000_000L);
        assertTrue(log.first(refusal("new-3", 10_000)), "100 ms later a sweep is due");
        assertEquals(true, log.first(refusal("new-4", 10_000)), "and it made room for more than one");
    }
}
