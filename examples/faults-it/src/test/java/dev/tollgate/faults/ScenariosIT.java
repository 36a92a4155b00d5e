package dev.tollgate.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Decision;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The faults and changes that {@link FaultHarnessIT}'s nemesis found, each replayed alone and by
 * hand on real nodes and a real Redis, so that each fix has a test that failed before it (what each
 * printed then is in the test's comment).
 */
class ScenariosIT {

    static RedisProcess redis;
    static int run;

    @BeforeAll
    static void start() {
        redis = TestRedis.startProcess();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    /** A node of this test: the nodes of one test share its key prefix, so they share buckets. */
    static Node node(int id, FaultProxy proxy, String failureMode, Map<String, String> extra) {
        return node(id, proxy, failureMode, extra, 0);
    }

    /** The same, on a clock {@code clockOffsetMicros} off Redis' (negative: behind). */
    static Node node(int id, FaultProxy proxy, String failureMode, Map<String, String> extra, long clockOffsetMicros) {
        Map<String, String> all = new java.util.HashMap<>(extra);
        all.put("tollgate.redis.key-prefix", "scenario" + run + ":");
        return new Node(id, proxy, Map.of("tollgate.redis.uri", "redis://127.0.0.1:" + proxy.port()), failureMode, all,
                clockOffsetMicros);
    }

    @org.junit.jupiter.api.BeforeEach
    void nextPrefix() {
        run++;
    }

    static TestRequest api(String key) {
        return TestRequest.get("/api/x").header("X-Api-Key", key);
    }

    /**
     * How many of {@code n} requests, sent to the nodes in turn as fast as they answer, were
     * admitted; each must have been decided by Redis (or a refusal it gave, remembered), or the
     * count would prove nothing.
     */
    static int alternating(List<Node> nodes, String key, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            Decision d = nodes.get(i % nodes.size()).check(api(key));
            assertTrue(d.source() == Decision.Source.REDIS || d.source() == Decision.Source.CACHE, "request " + (i + 1)
                    + " decided by Redis: " + d);
            if (d.allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    /**
     * A node's decision by Redis (or a refusal it gave, remembered): a decision the failure mode
     * made (a pooled connection slower than the budget on a loaded machine) is asked again, for at
     * most 2 s. It admitted nothing under {@code closed}; if Redis took before its reply was lost,
     * Redis' counts show it, which can only make a bound on admissions harder to keep.
     */
    static Decision byRedis(Node node, TestRequest request) {
        long until = System.nanoTime() + 2_000_000_000L;
        Decision d = node.check(request);
        while (d.source() == Decision.Source.NONE && System.nanoTime() < until) {
            Workload.sleepMicros(50_000);
            d = node.check(request);
        }
        assertTrue(d.source() == Decision.Source.REDIS || d.source() == Decision.Source.CACHE, "decided by Redis: " + d);
        return d;
    }

    /**
     * A rolling redeploy that adds a limit: node A runs {@code 1/min burst 3}, node B the new
     * version with {@code 1/min burst 3; 100/day}. A client alternating between them gets at most
     * the old burst plus one fresh burst. Before the fix: 20 of 20 (each node read the other's state
     * as full).
     */
    @Test
    void aRollingRedeployThatAddsALimitGivesAtMostOneFreshBurst() {
        try (FaultProxy pa = new FaultProxy(redis.port(), 1); FaultProxy pb = new FaultProxy(redis.port(), 2)) {
            Node a = node(0, pa, "closed", Map.of("tollgate.policy.api.limits", "1/min burst 3"));
            Node b = node(1, pb, "closed", Map.of("tollgate.policy.api.limits", "1/min burst 3; 100/day"));
            try {
                a.awaitRedis();
                b.awaitRedis();
                int admitted = alternating(List.of(a, b), "sk_live_rolling", 20);
                System.out.println("[scenario] rolling redeploy, 20 alternating requests: " + admitted + " admitted");
                assertTrue(admitted <= 3 + 3, admitted + " of 20 admitted; at most the burst of 3 plus one fresh burst");
            } finally {
                a.close();
                b.close();
            }
        }
    }

    /**
     * Two configurations of the same number of limits but other bursts: {@code 5/s burst 10} and
     * {@code 8/s burst 6}. The smaller burst capped the debt it read and stored the cap; the other
     * node then found tokens the client had spent: the cap forgave the debt at every alternation.
     * Over 2 s of requests as fast as the nodes answer: at most the more generous bound (6 + 8 × 2)
     * plus one burst of the other (10). Before the fix: about 80 per second.
     */
    @Test
    void twoBurstsInForceAtOnceDoNotForgiveTheDebtAtEachSwitch() {
        try (FaultProxy pa = new FaultProxy(redis.port(), 3); FaultProxy pb = new FaultProxy(redis.port(), 4)) {
            Node a = node(0, pa, "closed", Map.of("tollgate.policy.api.limits", "5/s burst 10", "tollgate.deny-cache", "false"));
            Node b = node(1, pb, "closed", Map.of("tollgate.policy.api.limits", "8/s burst 6", "tollgate.deny-cache", "false"));
            try {
                a.awaitRedis();
                b.awaitRedis();
                long end = System.nanoTime() + 2_000_000_000L;
                int admitted = 0;
                int sent = 0;
                long started = System.nanoTime();
                while (System.nanoTime() < end) {
                    if ((sent % 2 == 0 ? a : b).check(api("sk_live_bursts")).allowed()) {
                        admitted++;
                    }
                    sent++;
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                double bound = Math.max(10 + 5 * seconds, 6 + 8 * seconds) + 10;
                System.out.printf("[scenario] 5/s burst 10 and 8/s burst 6 alternating, %d requests in %.2f s: %d admitted,"
                        + " bound %.1f%n", sent, seconds, admitted, bound);
                assertTrue(admitted <= bound, admitted + " admitted in " + seconds + " s; bound " + bound);
            } finally {
                a.close();
                b.close();
            }
        }
    }

    /**
     * A node whose clock is three hours behind, on an hourly calendar quota ({@code 3/hour calendar}
     * in UTC), next to a node on time: 20 requests alternating between them get the quota once (once
     * more for each hour that began meanwhile). Before the fix: 6 of 20 ({@code AAAA.A.A....}): the
     * node behind counted in a window of its own that had ended three hours ago, the quota again,
     * while charging each admission to the hour of the node on time (alone, such a node was
     * admitted every time: each count it wrote was read as ended at the next call).
     */
    @Test
    void aNodeWhoseClockIsHoursBehindGetsNoMoreOfAnHourlyQuota() {
        try (FaultProxy pa = new FaultProxy(redis.port(), 8); FaultProxy pb = new FaultProxy(redis.port(), 9)) {
            Map<String, String> quota = Map.of("tollgate.policy.quota.limits", "3/hour calendar", "tollgate.policy.quota.zone",
                    "UTC");
            Node a = node(0, pa, "closed", quota);
            Node b = node(1, pb, "closed", quota, -3 * 3_600_000_000L);
            try {
                a.awaitRedis();
                b.awaitRedis();
                java.time.Instant start = java.time.Instant.now();
                StringBuilder seen = new StringBuilder();
                for (int i = 0; i < 20; i++) {
                    Decision d = byRedis(i % 2 == 0 ? a : b, TestRequest.get("/quota/x").header("X-Api-Key", "sk_live_behind"));
                    seen.append(d.allowed() ? 'A' : '.');
                }
                java.time.Instant end = java.time.Instant.now();
                long hours = 1 + java.time.Duration.between(start.truncatedTo(java.time.temporal.ChronoUnit.HOURS),
                        end.truncatedTo(java.time.temporal.ChronoUnit.HOURS)).toHours();
                long admitted = seen.chars().filter(c -> c == 'A').count();
                System.out.println("[scenario] a node 3 h behind on 3/hour calendar, 20 alternating requests: " + seen);
                assertTrue(admitted >= 3 && admitted <= 3 * hours, "admitted " + seen + " (A: admitted), in " + hours
                        + " hour windows of 3");
            } finally {
                a.close();
                b.close();
            }
        }
    }

    /**
     * Reloads that change the number and the order of a quota's calendar limits: {@code 3/hour
     * calendar} spent, then {@code 10/day calendar; 3/hour calendar} (a limit added, the hour
     * moved second), then {@code 3/hour calendar; 10/day calendar} (the order again). Each finds
     * the hour's count by its window, not by its position: no fresh quota (issue 28, item 1).
     */
    @Test
    void reloadsThatAddAndReorderCalendarLimitsGiveNoFreshQuota() {
        try (FaultProxy proxy = new FaultProxy(redis.port(), 10)) {
            Node n = node(0, proxy, "closed", Map.of("tollgate.policy.quota.limits", "3/hour calendar",
                    "tollgate.policy.quota.zone", "UTC", "tollgate.deny-cache", "false"));
            try {
                n.awaitRedis();
                TestRequest quota = TestRequest.get("/quota/x").header("X-Api-Key", "sk_live_reordered");
                java.time.Instant start = java.time.Instant.now();
                StringBuilder seen = new StringBuilder();
                for (String limits : List.of("3/hour calendar", "10/day calendar; 3/hour calendar",
                        "3/hour calendar; 10/day calendar")) {
                    n.set("tollgate.policy.quota.limits", limits);
                    n.reload();
                    for (int i = 0; i < 5; i++) {
                        Decision d = byRedis(n, quota);
                        assertEquals(Decision.Source.REDIS, d.source(), "the deny cache is off: " + d);
                        seen.append(d.allowed() ? 'A' : '.');
                    }
                    seen.append(' ');
                }
                boolean sameHour = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS)
                        .equals(start.truncatedTo(java.time.temporal.ChronoUnit.HOURS));
                System.out.println("[scenario] 3/hour, then a day added before it, then after it: " + seen);
                if (sameHour) {
                    assertEquals("AAA.. ..... ..... ", seen.toString(), "the hour's 3, and no more after either reload");
                } else { // an hour began meanwhile: one more quota, at most
                    assertTrue(seen.chars().filter(c -> c == 'A').count() <= 6, seen.toString());
                }
            } finally {
                n.close();
            }
        }
    }

    /**
     * A reply lost after {@code bucket.lua} took a concurrency slot: the node times out, the failure
     * mode ({@code open}) lets the request through without a slot, and the lease stays in Redis. Once
     * Redis answers again, the client, holding nothing, gets its one slot at once. Before the fix:
     * refused for the whole lease (30 s here).
     */
    @Test
    void aSlotWhoseReplyWasLostIsFreeOnceRedisAnswersAgain() throws InterruptedException {
        try (FaultProxy proxy = new FaultProxy(redis.port(), 5)) {
            Node n = node(0, proxy, "open", Map.of("tollgate.policy.slots.concurrency", "1",
                    "tollgate.policy.slots.concurrency-lease", "30s"));
            try {
                n.awaitRedis();
                TestRequest slot = TestRequest.get("/slots/x").header("X-Api-Key", "sk_live_slot");
                Decision first = n.check(slot);
                assertEquals(Decision.Source.REDIS, first.source(), first.toString());
                first.permit().release();
                proxy.set(FaultProxy.Fault.DROP_REPLIES, 0, 0);
                Decision lost = n.check(slot);
                assertEquals(Decision.Source.NONE, lost.source(), "the reply was lost; the failure mode decided: " + lost);
                lost.permit().release();
                proxy.heal();
                Thread.sleep(Nemesis.AFTERMATH_MICROS / 1000); // the circuit, if it opened, lets a probe through
                List<Decision> after = new ArrayList<>();
                Decision d = null;
                for (int i = 0; i < 10; i++) { // a few calls: the first may be the circuit's probe
                    d = n.check(slot);
                    after.add(d);
                    if (d.source() == Decision.Source.REDIS) {
                        break;
                    }
                    Thread.sleep(100);
                }
                if (d.source() == Decision.Source.REDIS && !d.allowed()) { // given back off the request path: one more look
                    Thread.sleep(200);
                    d = n.check(slot);
                    after.add(d);
                }
                System.out.println("[scenario] lost reply, then: " + after.stream().map(x -> x.verdict() + " by " + x.source()
                        + (x.allowed() ? "" : " retry " + x.retryAfterMicros() + " µs")).toList());
                assertTrue(d.allowed() && d.source() == Decision.Source.REDIS, "a slot at once, not after the lease: " + after);
                d.permit().release();
            } finally {
                n.close();
            }
        }
    }

    /**
     * A reload that lowers a concurrency while its slots are held: {@code concurrency=3} with three
     * slots taken (a 2 s lease), then {@code concurrency=1}. The refusal's wait must be until one
     * more fits under the new limit (the third-oldest lease's expiry), so a client that comes back
     * exactly then is admitted. Before the fix: the oldest lease's expiry, and refused again.
     */
    @Test
    void afterConcurrencyIsLoweredARefusalsWaitIsWhenASlotFits() throws InterruptedException {
        try (FaultProxy proxy = new FaultProxy(redis.port(), 6)) {
            Node n = node(0, proxy, "closed", Map.of("tollgate.policy.slots.concurrency", "3",
                    "tollgate.policy.slots.concurrency-lease", "2s"));
            try {
                n.awaitRedis();
                TestRequest slot = TestRequest.get("/slots/x").header("X-Api-Key", "sk_live_lowered");
                for (int i = 0; i < 3; i++) {
                    assertTrue(n.check(slot).allowed(), "slot " + (i + 1) + " of 3"); // held, never released
                    Thread.sleep(300);
                }
                n.set("tollgate.policy.slots.concurrency", "1");
                n.reload();
                Decision refused = n.check(slot);
                assertEquals(Decision.Verdict.DENY, refused.verdict(), "three held, one allowed now");
                long retryMicros = refused.retryAfterMicros();
                Thread.sleep(retryMicros / 1000 + 1);
                Decision again = n.check(slot);
                System.out.println("[scenario] concurrency lowered from 3 to 1 with 3 held: refused with a wait of " + retryMicros
                        + " µs, then " + again.verdict() + " at that time");
                assertTrue(again.allowed(), "admitted at the wait the refusal gave (" + retryMicros + " µs): " + again);
            } finally {
                n.close();
            }
        }
    }

    /**
     * The in-memory fallback must not forget a client's live slot when a flood of other clients
     * fills it: Redis unreachable (a black hole), failure mode {@code local} with
     * {@code local.max-keys=1000}, a client holding its one slot, 3000 other clients. Before the fix:
     * the least recently used eviction dropped the slot and the client got a second one.
     */
    @Test
    void aFloodOfOtherClientsDoesNotGiveAHeldSlotBackInTheFallback() {
        try (FaultProxy proxy = new FaultProxy(redis.port(), 7)) {
            // the black hole keeps every call, the circuit's probes too, from Redis: the fallback decides
            Node n = node(0, proxy, "local", Map.of("tollgate.policy.slots.concurrency", "1",
                    "tollgate.policy.slots.concurrency-lease", "60s", "tollgate.local.max-keys", "1000"));
            try {
                n.awaitRedis();
                proxy.set(FaultProxy.Fault.BLACK_HOLE, 0, 0);
                TestRequest slot = TestRequest.get("/slots/x").header("X-Api-Key", "sk_live_held");
                Decision held = null;
                for (int i = 0; i < 10 && (held == null || held.source() != Decision.Source.LOCAL); i++) {
                    held = n.check(slot); // the first calls find Redis unreachable and open the circuit
                }
                assertEquals(Decision.Source.LOCAL, held.source(), "decided by the fallback: " + held);
                assertTrue(held.allowed());
                for (int i = 0; i < 3000; i++) {
                    n.check(api("sk_live_flood_" + i));
                }
                Decision second = n.check(slot);
                System.out.println("[scenario] fallback, one slot held, 3000 other clients, then: " + second.verdict() + " by "
                        + second.source());
                assertEquals(Decision.Verdict.DENY, second.verdict(), "the held slot is still held: " + second);
            } finally {
                n.close();
            }
        }
    }
}
