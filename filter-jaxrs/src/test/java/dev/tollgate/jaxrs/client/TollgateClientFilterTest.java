package dev.tollgate.jaxrs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Outbound;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The filter's waiting and pausing, on a clock the test moves: nothing sleeps for real. */
class TollgateClientFilterTest {

    static final long WALL = 1_790_000_000_000L;
    final Fakes.Clock clock = new Fakes.Clock();
    /** 2 per second, burst 2; max-wait 5s, max-pause 60s. */
    final Fakes.ModelQuota quota = new Fakes.ModelQuota(clock, 2, 500_000,
            new Outbound(Duration.ofSeconds(5), Duration.ofSeconds(60)));
    final TollgateClientFilter filter = Fakes.filter(quota, clock, WALL);

    void call() {
        filter.filter(Fakes.request("GET", "https://api.example/repos"));
    }

    @Test
    void aCallWithATokenGoesAtOnceAndOneWithoutSleepsExactlyTheStoresWaitThenGoes() {
        call();
        call();
        assertEquals(List.of(), clock.sleeps, "the burst goes without waiting");
        call();
        assertEquals(List.of(Duration.ofMillis(500)), clock.sleeps, "one sleep of exactly the wait the store gave");
        assertEquals(new TollgateClientFilter.Counts(3, 1, Duration.ofMillis(500), 0, 0, 0), filter.counts());
    }

    @Test
    void aCallThatWouldWaitBeyondMaxWaitFailsAtOnceWithoutSleepingOrTakingAToken() {
        quota.pause(Duration.ofSeconds(30));
        RemoteQuotaException e = assertThrows(RemoteQuotaException.class, this::call);
        assertEquals(Duration.ofSeconds(30), e.retryAfter());
        assertEquals(Duration.ZERO, e.waited());
        assertEquals("partner", e.policy());
        assertEquals("api.example", e.remote());
        assertEquals(List.of(), clock.sleeps);
        assertEquals(0, quota.tatMicros, "no token was taken");
        assertTrue(e.getMessage().contains("api.example") && e.getMessage().contains("max-wait"), e.getMessage());
        assertEquals(1, filter.counts().notSent());
    }

    @Test
    void aZeroMaxWaitNeverWaits() {
        quota.outbound = new Outbound(Duration.ZERO, Duration.ofSeconds(60));
        call();
        call();
        assertThrows(RemoteQuotaException.class, this::call);
        assertEquals(List.of(), clock.sleeps);
    }

    @Test
    void aWaitThatFitsExactlyInMaxWaitIsWaited() {
        quota.pause(Duration.ofSeconds(5));
        call();
        assertEquals(List.of(Duration.ofSeconds(5)), clock.sleeps);
    }

    @Test
    void anInterruptedWaitFailsTheCallAndKeepsTheInterrupt() {
        TollgateClientFilter interrupted = new TollgateClientFilter("partner", "api.example", quota, d -> {
            throw new InterruptedException();
        }, clock::nanoTime, () -> WALL);
        quota.pause(Duration.ofSeconds(1));
        try {
            RemoteQuotaException e = assertThrows(RemoteQuotaException.class,
                    () -> interrupted.filter(Fakes.request("GET", "https://api.example/")));
            assertTrue(e.getCause() instanceof InterruptedException);
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aRefusalWithRetryAfterPausesTheSharedBucket() {
        filter.filter(Fakes.request("GET", "https://api.example/"), Fakes.response(429, "Retry-After", "3"));
        assertEquals(List.of(Duration.ofSeconds(3)), quota.pauses);
        call();
        assertEquals(List.of(Duration.ofSeconds(3)), clock.sleeps, "the next call waits out the pause");
        assertEquals(1, filter.counts().refusedByRemote());
        assertEquals(1, filter.counts().pauses());
    }

    @Test
    void anAnswerWithQuotaLeftOrNoFieldsPausesNothing() {
        filter.filter(Fakes.request("GET", "https://api.example/"), Fakes.response(200, "RateLimit", "\"default\";r=4;t=1"));
        filter.filter(Fakes.request("GET", "https://api.example/"), Fakes.response(200));
        filter.filter(Fakes.request("GET", "https://api.example/"), Fakes.response(500, "Retry-After", "10"));
        assertEquals(List.of(), quota.pauses);
    }

    @Test
    void anAbsurdRetryAfterIsClampedToMaxPauseAndLoggedOncePerRemote() {
        List<LogRecord> logged = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("dev.tollgate.client");
        log.addHandler(h);
        try {
            for (String absurd : List.of("-5", "99999999999999999999", "Tue, 01 Dec 2099 00:00:00 GMT", "soon", "")) {
                filter.filter(Fakes.request("GET", "https://api.example/"), Fakes.response(503, "Retry-After", absurd));
            }
        } finally {
            log.removeHandler(h);
        }
        assertEquals(List.of(Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofSeconds(60),
                Duration.ofSeconds(60)), quota.pauses);
        assertEquals(1, logged.size(), "once per remote: " + logged);
        assertTrue(logged.get(0).getMessage().contains("Retry-After: -5"), logged.get(0).getMessage());
    }
}
