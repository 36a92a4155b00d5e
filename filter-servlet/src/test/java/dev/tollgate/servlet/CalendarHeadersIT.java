package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A calendar quota over HTTP (the servlet filter in a real Tomcat 11, a real Redis): a fresh client
 * gets its whole quota, N requests pass, and the next is 429 with {@code Retry-After} and
 * {@code RateLimit}'s {@code t} equal to the seconds from Redis {@code TIME} to the start of the
 * next window in the configured zone, as docs/policies.md's "Calendar quotas" says.
 *
 * <p>The test cannot read the clock the script used for the refusal; it reads Redis {@code TIME}
 * just before and just after that request instead. The script's time lies between the two
 * readings, so the expected value lies between the rounded-up seconds to the reset from the later
 * and from the earlier reading: a range at most one second wide (the readings are well under a
 * second apart, and rounding up can straddle one whole second between them), and the answer must
 * fall inside it.
 */
@WithRedis
class CalendarHeadersIT {

    private static Instant redisTime(Jedis jedis) {
        List<String> t = jedis.time();
        return Instant.ofEpochSecond(Long.parseLong(t.get(0)), Long.parseLong(t.get(1)) * 1_000);
    }

    /** Seconds from {@code now} to {@code reset}, rounded up, as {@code Retry-After} rounds. */
    private static long secondsUntil(Instant now, Instant reset) {
        long micros = ChronoUnit.MICROS.between(now, reset);
        return (micros + 999_999) / 1_000_000;
    }

    /** The start of the next window after {@code now}, in {@code zone}. */
    private static Instant nextStart(Instant now, ZoneId zone, UnaryOperator<ZonedDateTime> startOfWindow,
                                     ChronoUnit unit) {
        return startOfWindow.apply(now.atZone(zone)).plus(1, unit).withZoneSameLocal(zone).toInstant();
    }

    /**
     * Runs N+1 requests of a fresh client and checks every header against Redis' clock.
     *
     * @param window      the quota, e.g. {@code 3/day calendar}
     * @param startOfWindow the start of the window holding a given local time
     * @param unit        the window's length in calendar units
     * @param nominalSeconds what {@code RateLimit-Policy}'s {@code w} says for the window
     */
    private static void quotaOverHttp(RedisEndpoint redis, int quota, String window, String zone,
                                      UnaryOperator<ZonedDateTime> startOfWindow, ChronoUnit unit, long nominalSeconds)
            throws Exception {
        String prefix = "calendar-" + UUID.randomUUID() + ":";
        Map<String, String> params = TollgateFilterIT.params(redis, "tollgate.redis.key-prefix", prefix,
                "tollgate.policy.default.limits", window, "tollgate.policy.default.zone", zone);
        ZoneId zoneId = ZoneId.of(zone);
        try (Jedis jedis = new Jedis(redis.host(), redis.port());
             EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), params)) {
            // starting the filter (connecting, loading the scripts, recording the policy's limits) spent nothing
            assertEquals(List.of(prefix + "/:policy:default"), List.copyOf(jedis.keys(prefix + "*")),
                    "no bucket before the first request, only the record of the policy's limits");
            // a window that ends during the test would refill it: start right after a reset instead
            Instant start = redisTime(jedis);
            while (nextStart(start, zoneId, startOfWindow, unit).minusSeconds(5).isBefore(start)) {
                Thread.sleep(500); // waiting for Redis' clock to pass the boundary, not timing the test
                start = redisTime(jedis);
            }
            for (int i = 1; i <= quota; i++) {
                HttpResponse<String> ok = t.get("/api/hello");
                assertEquals(200, ok.statusCode(), "request " + i + " of a fresh client's " + quota);
                assertEquals("\"default\";q=" + quota + ";w=" + nominalSeconds, ok.headers().firstValue("RateLimit-Policy").orElseThrow());
                String rateLimit = ok.headers().firstValue("RateLimit").orElseThrow();
                assertTrue(rateLimit.startsWith("\"default\";r=" + (quota - i) + ";t="), rateLimit);
            }
            Instant before = redisTime(jedis);
            HttpResponse<String> refused = t.get("/api/hello");
            Instant after = redisTime(jedis);

            assertEquals(429, refused.statusCode(), refused.body());
            Instant reset = nextStart(before, zoneId, startOfWindow, unit);
            assertEquals(reset, nextStart(after, zoneId, startOfWindow, unit), "no boundary between the two readings");
            long earliest = secondsUntil(after, reset);
            long latest = secondsUntil(before, reset);
            assertTrue(latest - earliest <= 1, "the readings straddle at most one second: " + before + " " + after);
            long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
            System.out.println("[calendar-it] " + window + " in " + zone + ": Redis TIME " + before + ", reset " + reset
                    + " (" + reset.atZone(zoneId) + "), Retry-After " + retryAfter + " s, expected " + earliest
                    + (latest == earliest ? "" : " or " + latest));
            assertTrue(retryAfter >= earliest && retryAfter <= latest,
                    "Retry-After " + retryAfter + " is the seconds to " + reset + ": between " + earliest + " and " + latest);
            assertEquals("\"default\";r=0;t=" + retryAfter, refused.headers().firstValue("RateLimit").orElseThrow(),
                    "remaining 0, reset the same seconds as Retry-After");
            assertEquals("\"default\";q=" + quota + ";w=" + nominalSeconds, refused.headers().firstValue("RateLimit-Policy").orElseThrow());
        }
    }

    @Test
    void aDailyQuotaRefusesTheNextRequestUntilMidnightInTheZone(RedisEndpoint redis) throws Exception {
        quotaOverHttp(redis, 3, "3/day calendar", "UTC", z -> z.truncatedTo(ChronoUnit.DAYS), ChronoUnit.DAYS, 86_400);
    }

    /**
     * A month in a zone far from UTC, whose month starts at another instant than UTC's (on the last
     * and first hours of a month the two are even in different months), and whose offset may change
     * within the month (the reset is midnight local time whatever the offset then).
     */
    @Test
    void aMonthlyQuotaInAnotherZoneRefusesUntilTheFirstOfTheNextMonthThere(RedisEndpoint redis) throws Exception {
        quotaOverHttp(redis, 2, "2/month calendar", "America/Los_Angeles",
                z -> z.with(TemporalAdjusters.firstDayOfMonth()).truncatedTo(ChronoUnit.DAYS), ChronoUnit.MONTHS, 2_592_000);
    }
}
