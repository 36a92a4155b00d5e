package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The outbound client of {@code examples/jaxrs-app} on a server's main start (WildFly and Payara
 * Micro; it is a CDI bean): {@code GET /api/partner/items/{id}} calls the partner API through
 * {@code PartnerClient}, a JAX-RS client of the server's own runtime (RESTEasy, Jersey) with
 * {@code TollgateClientFilter.forPolicy(limiter, "partner")}. The partner is the application's
 * {@code PartnerStandIn} at the request's own base URI, limited by its own policy. From the
 * application's {@code microprofile-config.properties}:
 *
 * <ul>
 *   <li>{@code partner}: {@code 5/min burst 5} (a token each 12 s), {@code max-wait=2s},
 *       {@code max-pause=1min}, {@code match=OUTBOUND /};</li>
 *   <li>{@code partner-stand-in}: {@code 10/min burst 10} (a token each 6 s), per caller address.</li>
 * </ul>
 *
 * The counts come from the filter itself ({@code GET /api/partner/calls}); bounds allow what the
 * policy refills in the time the requests took. Every test starts with empty buckets and no pause.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ServerDiagnostics.class)
public abstract class OutboundClientContract {

    private static final int BURST = 5;
    private static final double SECONDS_PER_TOKEN = 12.0;
    private static final double MAX_WAIT_SECONDS = 2.0;
    private static final int STAND_IN_BURST = 10;
    private static final long STAND_IN_SECONDS_PER_TOKEN = 6;

    private final ServerContract on;
    private final App app;

    protected OutboundClientContract(ServerContract on, App app) {
        this.on = on;
        this.app = app;
    }

    private HttpResponse<String> get(String path) {
        return on.server().get(app.deployment(), path);
    }

    /** The filter's counters: sent, waited, not-sent, refused-by-remote, pauses. */
    private Map<String, Long> calls() {
        HttpResponse<String> r = get("/api/partner/calls");
        assertEquals(200, r.statusCode(), r::body);
        Map<String, Long> counts = new HashMap<>();
        for (String pair : r.body().strip().split(" ")) {
            String[] kv = pair.split("=");
            counts.put(kv[0], Long.parseLong(kv[1]));
        }
        return counts;
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String name) {
        return after.get(name) - before.get(name);
    }

    private List<String> keys(String pattern) {
        String reply = on.redis().command("KEYS", pattern);
        List<String> keys = new ArrayList<>();
        if (reply != null) {
            reply.lines().filter(l -> !l.isEmpty()).forEach(keys::add);
        }
        return keys;
    }

    /** Both buckets full and no pause: the partner's bucket, its pause gate and the stand-in's bucket deleted. */
    @BeforeEach
    void fullBucketsNoPause() {
        for (String key : keys(on.expectedKeyPrefix() + "*partner*")) {
            on.redis().command("DEL", key);
        }
    }

    /**
     * Quick calls one after the other: the first {@value #BURST} are sent; the next token is 12 s
     * away, beyond {@code max-wait}, so the next calls are not sent and answer {@code 503} with a
     * {@code Retry-After} of at most 12 s. The stand-in (burst 10) never refuses what the policy lets through.
     */
    @Test
    void theCallsStayUnderThePolicyAndASpentQuotaAnswers503WithRetryAfter() {
        Map<String, Long> before = calls();
        int n = 8;
        List<HttpResponse<String>> answers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            answers.add(get("/api/partner/items/" + i));
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        Map<String, Long> after = calls();

        int passed = 0;
        HttpResponse<String> refusal = null;
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = answers.get(i);
            if (r.statusCode() == 200) {
                passed++;
                assertEquals("partner says: item " + i, r.body().strip());
            } else if (r.statusCode() == 503) {
                refusal = r;
                assertTrue(r.body().contains("the partner's quota is used up"), r.body());
                long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
                assertTrue(retryAfter >= 1 && retryAfter <= SECONDS_PER_TOKEN, "Retry-After " + retryAfter);
            } else {
                fail("call " + i + " got " + r.statusCode() + ": " + r.body());
            }
        }
        // The calls that pass may use the tokens that come while they wait (max-wait), which the elapsed time includes.
        int mostSent = BURST + (int) Math.floor(elapsed / SECONDS_PER_TOKEN);
        System.out.printf(Locale.ROOT, "[servers-it] %s: %d outbound calls in %.3f s: %d sent (at most %d may be),"
                + " counts before %s, after %s%n", on.server().title(), n, elapsed, passed, mostSent, before, after);
        for (int i = 0; i < BURST; i++) {
            assertEquals(200, answers.get(i).statusCode(), "call " + i + " of a full bucket of " + BURST);
        }
        assertTrue(passed <= mostSent, passed + " sent in " + elapsed + " s; at most " + mostSent);
        assertEquals(passed, delta(before, after, "sent"), "the filter counted what was sent");
        assertEquals(n - passed, delta(before, after, "not-sent"), "the filter counted what was not sent");
        assertEquals(0, delta(before, after, "refused-by-remote"), "the stand-in refused nothing");
        String bucket = on.expectedKeyPrefix() + app.keyNamespace() + "{remote=partner}:partner";
        assertEquals(List.of(bucket), keys(on.expectedKeyPrefix() + app.keyNamespace() + "{remote=*"), "one bucket for the partner");
        if (refusal != null) {
            System.out.println("[servers-it] " + on.server().title() + ": an outbound call not sent: "
                    + refusal.statusCode() + " " + refusal.headers().map() + " " + refusal.body().strip());
        }
    }

    /**
     * The partner's quota is spent by someone else (this test calls the stand-in directly, from the
     * same address: the same account): the next outbound call is sent, the stand-in answers
     * {@code 429} with a {@code Retry-After} of up to 6 s, the filter pauses the partner's bucket for every node
     * and the resource answers {@code 503} with that {@code Retry-After}. A call right after it is
     * not sent: the pause is longer than {@code max-wait}.
     */
    @Test
    void thePartners429PausesTheCallsAndIsAnswered503() {
        int direct = 0;
        HttpResponse<String> spent = null;
        for (int i = 0; i < 3 * STAND_IN_BURST && spent == null; i++) {
            HttpResponse<String> r = get("/api/partner-stand-in/items/direct-" + i);
            if (r.statusCode() == 429) {
                spent = r;
            } else {
                assertEquals(200, r.statusCode(), r::body);
                direct++;
            }
        }
        assertTrue(spent != null, "the stand-in refused none of " + direct + " direct calls");
        assertTrue(direct >= STAND_IN_BURST, direct + " direct calls passed, fewer than the stand-in's burst");

        Map<String, Long> before = calls();
        long t0 = System.nanoTime();
        HttpResponse<String> first = get("/api/partner/items/a");
        HttpResponse<String> second = get("/api/partner/items/b");
        // from before the first call: an upper bound of the time from the pause to the second call
        double between = (System.nanoTime() - t0) / 1e9;
        Map<String, Long> after = calls();
        System.out.printf(Locale.ROOT, "[servers-it] %s: after %d direct calls spent the stand-in's quota: %d %s %s,"
                        + " then (%.3f s after the first was sent) %d %s; counts before %s, after %s%n", on.server().title(), direct,
                first.statusCode(), first.headers().firstValue("Retry-After").orElse("none"), first.body().strip(), between,
                second.statusCode(), second.body().strip(), before, after);

        // The stand-in's next token is up to 6 s away: the partner refused the first call.
        assertEquals(503, first.statusCode(), first::body);
        assertTrue(first.body().contains("the partner refused the call (429)"), first.body());
        long retryAfter = Long.parseLong(first.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1 && retryAfter <= STAND_IN_SECONDS_PER_TOKEN, "the stand-in's Retry-After " + retryAfter);
        assertEquals(1, delta(before, after, "refused-by-remote"), "the filter saw the partner's 429");
        assertTrue(delta(before, after, "pauses") >= 1, "the partner's answer paused the bucket");

        if (between < retryAfter - MAX_WAIT_SECONDS || second.statusCode() == 503) {
            // the pause had longer to run than max-wait: the call was not sent
            assertEquals(503, second.statusCode(), second::body);
            assertTrue(second.body().contains("the partner's quota is used up"), second.body());
            assertEquals(1, delta(before, after, "sent"), "only the first call was sent");
            assertEquals(1, delta(before, after, "not-sent"), "the second call was not sent");
        } else {
            // a slow machine: the pause was over, or nearly (the call waited), when the second call came
            assertEquals(2, delta(before, after, "sent"), "the second call was sent once the pause was over");
        }
    }
}
