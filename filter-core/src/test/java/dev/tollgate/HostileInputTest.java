package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.HostileValues;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile input through the engine over the in-memory store: huge, empty, non-ASCII,
 * control-character and malicious values in everything a client controls. Seeded, so a failure
 * names its seed and request number and replays exactly.
 *
 * <p>Whatever arrives: nothing is thrown out of {@code check} or {@code answer}, nothing is logged
 * as an internal error, every storage key stays within prefix + 120 + policy name + 3 with
 * exactly the hash tag's pair of braces, responses carry only printable ASCII, and the store
 * holds at most {@code tollgate.local.max-keys} buckets however many clients appear.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileInputTest {

    static final int REQUESTS = 30_000;

    /** X-Forwarded-For, header plans, every kind of key, costs, a shadow policy, a sliding log, an allow-list. */
    static final String[] PROXIES_AND_EVERY_KEY = {
        "tollgate.trusted-proxies", "10.0.0.0/8, 127.0.0.1, ::1",
        "tollgate.forwarded-header", "x-forwarded-for",
        "tollgate.ipv6-prefix", "56",
        "tollgate.headers", "both",
        "tollgate.retry-after-jitter", "2s",
        "tollgate.allow-list", "192.0.2.0/24, principal:monitor, role:internal",
        "tollgate.plans", "gold,free",
        "tollgate.plan.default", "free",
        "tollgate.plan.selector", "header:X-Plan",
        "tollgate.policies", "addr,apikey,who,mix,export",
        "tollgate.policy.addr.limits", "50/s burst 100; 10000/day",
        "tollgate.policy.addr.limits.gold", "500/s burst 1000",
        "tollgate.policy.apikey.key", "header:X-Api-Key",
        "tollgate.policy.apikey.match", "/api/**, /export/**",
        "tollgate.policy.apikey.cost", "10 GET /export/**, 2 POST|PUT /api/*/items/**, 1",
        "tollgate.policy.apikey.limits", "20/s burst 40",
        "tollgate.policy.who.key", "principal+route",
        "tollgate.policy.who.match", "GET|POST|PUT /api/*/items/**, /u*/**",
        "tollgate.policy.who.limits", "5/min",
        "tollgate.policy.who.mode", "shadow",
        "tollgate.policy.mix.key", "header:X-Api-Key+route, principal, ip",
        "tollgate.policy.mix.limits", "100/min",
        "tollgate.policy.mix.algorithm", "sliding-log",
        "tollgate.policy.export.key", "route+ip",
        "tollgate.policy.export.match", "GET /export/**",
        "tollgate.policy.export.limits", "30/min",
    };

    /** RFC 7239 Forwarded, role plans, IPv4 grouped by /24, principal keys. */
    static final String[] FORWARDED_AND_ROLES = {
        "tollgate.trusted-proxies", "10.0.0.0/8, 127.0.0.1, ::1, fd00::/8",
        "tollgate.forwarded-header", "forwarded",
        "tollgate.ipv4-prefix", "24",
        "tollgate.plans", "gold,free",
        "tollgate.plan.default", "free",
        "tollgate.plan.gold.role", "gold",
        "tollgate.policies", "addr,user",
        "tollgate.policy.addr.limits", "2/s burst 3",
        "tollgate.policy.user.key", "principal, header:X-Api-Key",
        "tollgate.policy.user.limits", "1/h",
        "tollgate.policy.user.limits.gold", "10/h",
    };

    @Test
    void hostileRequestsBehindXForwardedForNeverBreakTheEngine() {
        run(HostileRequests.config(PROXIES_AND_EVERY_KEY), 0x7011_6a7eL);
    }

    @Test
    void hostileRequestsBehindForwardedNeverBreakTheEngine() {
        run(HostileRequests.config(FORWARDED_AND_ROLES), 0xf0_4ba4dL);
    }

    private static void run(TollgateConfig config, long seed) {
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(config.store().localMaxKeys(), clock::nowMicros);
        HostileValues h = new HostileValues(seed);
        int decided = 0;
        int denied = 0;
        long start = System.nanoTime();
        try (HostileRequests.LogCapture log = new HostileRequests.LogCapture();
             RateLimiter limiter = new RateLimiter(config, store, null, System::nanoTime)) {
            for (int i = 0; i < REQUESTS; i++) {
                TestRequest t = HostileRequests.next(h);
                int n = i;
                Supplier<String> where = () -> "seed " + seed + ", request " + n + " (" + HostileRequests.describe(t) + ")";
                HostileRequests.Answered answered = HostileRequests.checkAndAnswer(limiter, t, where);
                Decision d = answered.decision();
                HttpAnswer a = answered.answer();
                HostileRequests.assertSafe(limiter, d, a, where);
                decided += d.results().isEmpty() ? 0 : 1;
                denied += d.verdict() == Decision.Verdict.DENY ? 1 : 0;
                if (i % 1000 == 0) {
                    clock.advanceMicros(250_000);
                }
            }
            log.assertClean();
            assertTrue(store.size() <= config.store().localMaxKeys(), store.size() + " buckets");
            System.out.printf("[hostile] seed %d: %d requests in %d ms, %d decided by a policy, %d refused, %d refusal log lines,"
                            + " %d buckets held%n", seed, REQUESTS, (System.nanoTime() - start) / 1_000_000, decided, denied,
                    log.refusalLines, store.size());
        }
        assertTrue(decided > REQUESTS / 2, "most requests met a policy: " + decided);
        assertTrue(denied > 0, "some hostile clients were refused");
    }

    @Test
    void aRequestViewThatThrowsEverywhereStillGetsADecision() {
        TollgateConfig config = HostileRequests.config(PROXIES_AND_EVERY_KEY);
        RequestView broken = new RequestView() {
            public String method() {
                throw new IllegalStateException("method");
            }

            public String path() {
                throw new IllegalStateException("path");
            }

            public String route() {
                throw new IllegalStateException("route");
            }

            public String remoteAddress() {
                throw new IllegalStateException("remote");
            }

            public String header(String name) {
                throw new IllegalStateException("header");
            }

            public List<String> headers(String name) {
                throw new IllegalStateException("headers");
            }

            public String principal() {
                throw new IllegalStateException("principal");
            }

            public boolean userInRole(String role) {
                throw new IllegalStateException("role");
            }
        };
        try (HostileRequests.LogCapture log = new HostileRequests.LogCapture();
             RateLimiter limiter = new RateLimiter(config, new LocalStore(config.store().localMaxKeys(), new ManualClock()::nowMicros), null, System::nanoTime)) {
            Decision d = limiter.check(broken, config.policies());
            HostileRequests.assertSafe(limiter, d, limiter.answer(d), () -> "broken view");
            assertEquals(config.policies().size(), d.results().size(), "every policy decided, on the fallback key");
            log.assertClean();
        }
    }

    @Test
    void millionsOfDistinctClientsKeepTheInMemoryStoreBounded() {
        TollgateConfig config = HostileRequests.config(
                "tollgate.local.max-keys", "1000",
                "tollgate.trusted-proxies", "10.0.0.0/8",
                "tollgate.policies", "addr,apikey",
                "tollgate.policy.addr.limits", "1/h",
                "tollgate.policy.apikey.key", "header:X-Api-Key",
                "tollgate.policy.apikey.limits", "1/h");
        int clients = 1_000_000;
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(config.store().localMaxKeys(), clock::nowMicros);
        HostileValues h = new HostileValues(0xb0_07_ed);
        long start = System.nanoTime();
        int maxSeen = 0;
        try (HostileRequests.LogCapture log = new HostileRequests.LogCapture();
             RateLimiter limiter = new RateLimiter(config, store, null, System::nanoTime)) {
            TestRequest last = null;
            for (int i = 0; i < clients; i++) {
                // a distinct address behind the proxy and a distinct, hostile API key: two new buckets each time
                last = new TestRequest().method("GET").path("/api/hello").from("10.0.0.1")
                        .header("X-Forwarded-For", (100 + (i >>> 24)) + "." + ((i >>> 16) & 255) + "." + ((i >>> 8) & 255) + "." + (i & 255))
                        .header("X-Api-Key", "k" + i + "|" + h.distinct());
                Decision d = limiter.check(last);
                if (!d.allowed()) {
                    fail("client " + i + " is new, yet refused: " + d);
                }
                if (i % 50_000 == 0) {
                    maxSeen = Math.max(maxSeen, store.size());
                    assertTrue(store.size() <= config.store().localMaxKeys(), "after " + i + " clients: " + store.size() + " buckets");
                }
            }
            maxSeen = Math.max(maxSeen, store.size());
            assertTrue(store.size() <= config.store().localMaxKeys(), store.size() + " buckets");
            assertEquals(Decision.Verdict.DENY, limiter.check(last).verdict(), "the most recent client is still limited");
            log.assertClean();
        }
        System.out.printf("[hostile] %d distinct clients (%d buckets asked for) in %d ms; at most %d buckets held (max-keys %d)%n",
                clients, 2 * clients, (System.nanoTime() - start) / 1_000_000, maxSeen, config.store().localMaxKeys());
    }

    /**
     * A segment pattern with several {@code *} is matched without backtracking. (It once was a
     * regular expression: {@code /dl/*-*-*.zip} against 1,000 dashes took 4.7 s, against 2,000 30 s,
     * growing as n^3.) Here the segment is 100,000 dashes, which that would not finish in hours;
     * the time-out only keeps a regression from hanging the build.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aPatternWithSeveralStarsInASegmentMatchesAHostilePathWithoutBacktracking() {
        TollgateConfig config = HostileRequests.config(
                "tollgate.policy.default.limits", "10/s",
                "tollgate.policy.default.match", "GET /dl/*-*-*.zip");
        try (RateLimiter limiter = new RateLimiter(config, new LocalStore(config.store().localMaxKeys(), new ManualClock()::nowMicros), null, System::nanoTime)) {
            assertTrue(limiter.check(TestRequest.get("/dl/" + "-".repeat(100_000))).results().isEmpty(), "no .zip: no match");
            assertEquals(1, limiter.check(TestRequest.get("/dl/" + "-".repeat(100_000) + ".zip")).results().size());
            assertEquals(1, limiter.check(TestRequest.get("/dl/a-b-c.zip")).results().size());
            assertTrue(limiter.check(TestRequest.get("/dl/a-b.zip")).results().isEmpty(), "two dashes are not three");
        }
    }
}
