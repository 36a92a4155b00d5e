package dev.tollgate.jaxrs.client;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Outbound;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

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

    @Test
    void callsGoOnlyWhenTheSharedBucketAndThePauseAllowAndWaitAtMostMaxWait() {
        qt(400).forAll(steps(), maxWaitMillis()).checkAssert(this::callsGoOnlyWhenTheSharedBucketAndThePauseAllowAndWaitAtMostMaxWait);
    }

    private void callsGoOnlyWhenTheSharedBucketAndThePauseAllowAndWaitAtMostMaxWait(List<Step> steps, long maxWaitMillis) {
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

    static Gen<Long> maxWaitMillis() {
        return of(0L, 100L, 250L, 1_000L, 5_000L);
    }

    static Gen<List<Step>> steps() {
        Gen<Step> call = ints(0, 2).map(Call::new);
        Gen<Step> answer = ints(0, 2).zip(frequency(weight(5, longs(0, 3)), weight(1, longs(4, 100))), Answer::new);
        Gen<Step> idle = longs(1, 3_000).map(Idle::new);
        return lists(frequency(weight(10, call), weight(2, answer), weight(4, idle)), 1, 60);
    }
}
