package dev.tollgate.jaxrs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Outbound;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The filter over generated calls from several clients, remote answers and time, on one shared
 * model bucket ({@link Fakes.ModelQuota}) and a clock only sleeps and the test move: a call goes
 * exactly when the bucket and the pause allow it, waits at most {@code max-wait} in one sleep
 * (nobody else took its token meanwhile, so nothing spins), fails at once when its wait is
 * longer, and no call goes while a pause a remote set lasts.
 */
class ClientFilterProperties {

    sealed interface Step permits Call, Answer, Idle {
    }

    record Call(int client) implements Step {
    }

    /** The remote answered client {@code client} with 429 and {@code Retry-After: seconds}. */
    record Answer(int client, long seconds) implements Step {
    }

    record Idle(long millis) implements Step {
    }

    @Property(tries = 400)
    void callsGoOnlyWhenTheSharedBucketAndThePauseAllowAndWaitAtMostMaxWait(
            @ForAll("steps") List<Step> steps, @ForAll("maxWaitMillis") long maxWaitMillis) {
        Fakes.Clock clock = new Fakes.Clock();
        Outbound outbound = new Outbound(Duration.ofMillis(maxWaitMillis), Duration.ofSeconds(20));
        Fakes.ModelQuota quota = new Fakes.ModelQuota(clock, 3, 250_000, outbound); // 4/s burst 3
        List<TollgateClientFilter> clients = List.of(Fakes.filter(quota, clock, 0), Fakes.filter(quota, clock, 0),
                Fakes.filter(quota, clock, 0));
        List<long[]> pauses = new ArrayList<>(); // {µs set, µs end}
        for (Step step : steps) {
            if (step instanceof Idle i) {
                clock.nanos += i.millis() * 1_000_000;
            } else if (step instanceof Answer a) {
                long now = clock.nanos / 1000;
                clients.get(a.client()).filter(Fakes.request("GET", "https://api.example/x"),
                        Fakes.response(429, "Retry-After", Long.toString(a.seconds())));
                pauses.add(new long[] {now, now + Math.min(a.seconds(), 20) * 1_000_000});
            } else if (step instanceof Call c) {
                long before = clock.nanos;
                int sleeps = clock.sleeps.size();
                long tat = quota.tatMicros;
                long predicted = predictWait(quota);
                try {
                    clients.get(c.client()).filter(Fakes.request("GET", "https://api.example/x"));
                    long waitedNanos = clock.nanos - before;
                    assertEquals(predicted * 1000, waitedNanos, "a call waits exactly until its token");
                    assertTrue(waitedNanos <= maxWaitMillis * 1_000_000, "waited " + waitedNanos + " ns");
                    assertTrue(clock.sleeps.size() - sleeps <= 1, "one sleep at most: nothing spins");
                    long at = clock.nanos / 1000;
                    for (long[] p : pauses) {
                        assertTrue(at >= p[1] || at < p[0], "a call went at " + at + " inside a pause until " + p[1]);
                    }
                } catch (RemoteQuotaException e) {
                    assertTrue(predicted > maxWaitMillis * 1000, "failed though its wait " + predicted + " µs fits");
                    assertEquals(before, clock.nanos, "a failing call does not wait");
                    assertEquals(tat, quota.tatMicros, "nor take a token");
                    assertEquals(Duration.ofNanos(predicted * 1000), e.retryAfter());
                }
            }
        }
    }

    /** The wait the model gives a call now, without taking anything. */
    private static long predictWait(Fakes.ModelQuota q) {
        long now = q.now();
        long after = Math.max(q.tatMicros, now) + q.perTokenMicros;
        return Math.max(0, Math.max(after - now - q.capacity * q.perTokenMicros, q.pausedUntilMicros - now));
    }

    @Provide
    Arbitrary<Long> maxWaitMillis() {
        return Arbitraries.of(0L, 100L, 250L, 1_000L, 5_000L);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> call = Arbitraries.integers().between(0, 2).map(Call::new);
        Arbitrary<Step> answer = Combinators.combine(Arbitraries.integers().between(0, 2),
                Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.longs().between(0, 3)),
                        Tuple.of(1, Arbitraries.longs().between(4, 100)))).as(Answer::new);
        Arbitrary<Step> idle = Arbitraries.longs().between(1, 3_000).map(Idle::new);
        return Arbitraries.frequencyOf(Tuple.of(10, call), Tuple.of(2, answer), Tuple.of(4, idle))
                .list().ofMinSize(1).ofMaxSize(60);
    }
}
