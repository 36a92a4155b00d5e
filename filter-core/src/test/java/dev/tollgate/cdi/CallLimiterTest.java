package dev.tollgate.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.Permit;
import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The interceptor's mechanism without a CDI container: which key a call gets, that a refusal
 * throws with the filters' answer, that slots are given back, which limiter decides. The engine
 * is the real one over the in-memory store; the limits refill one token per twenty minutes, so
 * no refill happens during a test.
 */
class CallLimiterTest {

    /** The beans of the tests; their annotations are what the interceptor reads. */
    static class Reports {
        @RateLimited("cdi-exports")
        public void export(@RateLimitKey String tenant) {
        }

        @RateLimited("cdi-exports")
        public void region(@RateLimitKey String tenant, int ignored, @RateLimitKey Integer region) {
        }

        @RateLimited("cdi-exports")
        public void nightly() {
        }

        @RateLimited(value = "cdi-exports", cost = 3)
        public void bulk(@RateLimitKey String tenant) {
        }

        @RateLimited("cdi-slots")
        public void slow(@RateLimitKey String tenant) {
        }
    }

    final Map<String, String> settings = new HashMap<>(Map.of(
            "tollgate.metrics", "none", "tollgate.jmx", "false",
            "tollgate.policies", "cdi-exports,cdi-slots",
            "tollgate.policy.cdi-exports.limits", "3/h burst 3",
            "tollgate.policy.cdi-slots.concurrency", "1",
            "tollgate.policy.cdi-slots.concurrency-lease", "10min"));
    final List<AutoCloseable> open = new ArrayList<>();
    HttpCall current;

    Supplier<TollgateConfig> configuration() {
        return () -> TestConfigs.withProviders(settings);
    }

    CallLimiter calls() {
        Limiters limiters = new Limiters(configuration(), "cdi-test");
        open.add(limiters);
        return new CallLimiter(limiters, () -> current);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    static MethodLimit limit(String name) {
        for (var m : Reports.class.getMethods()) {
            if (m.getName().equals(name)) {
                return MethodLimit.find(new MethodLimit.Key(Reports.class, m), () -> null);
            }
        }
        throw new AssertionError(name);
    }

    @Test
    void callsWithTheSameArgumentShareABucketAndOthersDoNot() {
        CallLimiter calls = calls();
        MethodLimit export = limit("export");
        for (int i = 0; i < 3; i++) {
            calls.admit(export, new Object[] {"acme"});
        }
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                () -> calls.admit(export, new Object[] {"acme"}));
        assertEquals(429, e.answer().status());
        assertEquals(List.of("cdi-exports"), e.policies());
        assertEquals(Decision.Verdict.DENY, e.decision().verdict());
        assertEquals("arg=acme", e.decision().denying().get(0).clientKey());
        assertEquals(String.valueOf(e.retryAfterSeconds()), header(e.answer(), "Retry-After"));
        assertTrue(e.retryAfterSeconds() >= 1_000 && e.retryAfterSeconds() <= 1_201, "one token per 20 min: " + e.retryAfterSeconds());
        assertTrue(e.answer().body().contains("cdi-exports"), e.answer().body());
        assertTrue(e.getMessage().contains("@RateLimited() on " + Reports.class.getName() + "#export"), e.getMessage());
        calls.admit(export, new Object[] {"globex"}); // another tenant still passes
    }

    @Test
    void aCostTakesThatManyTokens() {
        CallLimiter calls = calls();
        calls.admit(limit("bulk"), new Object[] {"acme"});
        assertThrows(RateLimitExceededException.class, () -> calls.admit(limit("export"), new Object[] {"acme"}),
                "the same tenant's bucket of the same policy, emptied by one call of cost 3");
    }

    @Test
    void severalKeyParametersMakeOneKeyInParameterOrder() {
        CallLimiter calls = calls();
        MethodLimit region = limit("region");
        for (int i = 0; i < 3; i++) {
            calls.admit(region, new Object[] {"acme", i, 7});
        }
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                () -> calls.admit(region, new Object[] {"acme", 99, 7}), "the unannotated parameter is no part of the key");
        assertEquals("arg=acme%2C7", e.decision().denying().get(0).clientKey());
        calls.admit(region, new Object[] {"acme", 0, 8});
        calls.admit(region, new Object[] {"7", 0, null}); // not the same as ("acme", 7) nor as ("acme", 8)
    }

    @Test
    void nullAndAbsurdValuesNeverThrowAndNullIsOneSharedKey() {
        CallLimiter calls = calls();
        MethodLimit export = limit("export");
        for (int i = 0; i < 3; i++) {
            calls.admit(export, new Object[] {null});
        }
        assertThrows(RateLimitExceededException.class, () -> calls.admit(export, new Object[] {null}));
        calls.admit(export, new Object[] {"null"}); // the text "null" is not the null value
        String huge = "x".repeat(2_000_000);
        for (int i = 0; i < 3; i++) {
            calls.admit(export, new Object[] {huge});
        }
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                () -> calls.admit(export, new Object[] {huge}));
        assertTrue(e.decision().denying().get(0).clientKey().startsWith("#"), "hashed like any long key");
        calls.admit(export, new Object[] {huge + "y"});
        assertThrows(RateLimitExceededException.class, () -> calls.admit(export, null),
                "a container that passes no parameters: the null value, refused like the other nulls, no other exception");
    }

    @Test
    void outsideAnHttpRequestEveryCallerOfTheMethodSharesOneKey() {
        CallLimiter calls = calls();
        MethodLimit nightly = limit("nightly");
        for (int i = 0; i < 3; i++) {
            calls.admit(nightly, new Object[0]);
        }
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class, () -> calls.admit(nightly, new Object[0]));
        assertEquals("method=" + Reports.class.getName().replace("$", "%24") + ".nightly", e.decision().denying().get(0).clientKey());
    }

    @Test
    void insideAnHttpRequestTheCallIsKeyedByItsClientAsTheFiltersKeyIt() {
        CallLimiter calls = calls();
        MethodLimit nightly = limit("nightly");
        current = new HttpCall(TestRequest.get("/reports").from("192.0.2.7"), Set.of());
        for (int i = 0; i < 3; i++) {
            calls.admit(nightly, new Object[0]);
        }
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class, () -> calls.admit(nightly, new Object[0]));
        assertEquals("ip=192.0.2.7", e.decision().denying().get(0).clientKey());
        current = new HttpCall(TestRequest.get("/reports").from("192.0.2.8"), Set.of());
        calls.admit(nightly, new Object[0]);
        current = null;
        calls.admit(nightly, new Object[0]); // a job's key is none of the clients'
    }

    @Test
    void aPolicyAFilterDecidedForTheSameRequestIsNotCountedAgainUnlessTheKeyIsAnArgument() {
        CallLimiter calls = calls();
        current = new HttpCall(TestRequest.get("/reports").from("192.0.2.7"), Set.of("cdi-exports"));
        for (int i = 0; i < 10; i++) {
            calls.admit(limit("nightly"), new Object[0]);
        }
        for (int i = 0; i < 3; i++) {
            calls.admit(limit("export"), new Object[] {"acme"});
        }
        assertThrows(RateLimitExceededException.class, () -> calls.admit(limit("export"), new Object[] {"acme"}),
                "another bucket than the filter's: counted");
    }

    @Test
    void aConcurrencySlotIsHeldUntilReleased() {
        CallLimiter calls = calls();
        Permit first = calls.admit(limit("slow"), new Object[] {"acme"});
        assertTrue(first.held());
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                () -> calls.admit(limit("slow"), new Object[] {"acme"}));
        assertEquals(429, e.answer().status());
        calls.admit(limit("slow"), new Object[] {"globex"}).release();
        assertTrue(first.release());
        calls.admit(limit("slow"), new Object[] {"acme"}).release();
    }

    @Test
    void aLimiterOfAFilterOfTheApplicationIsSharedWhenItDeclaresThePolicies() {
        RateLimiter filters = RateLimiter.create(configuration().get(), "filter-test", null);
        open.add(filters);
        Limiters limiters = new Limiters(() -> {
            throw new AssertionError("no limiter of its own while a filter's serves");
        }, "cdi-test");
        open.add(limiters);
        assertSame(filters, limiters.forCall(limit("export")));
        filters.close();
        settings.put("tollgate.policies", "other");
        settings.put("tollgate.policy.other.limits", "1/s");
        RateLimiter unrelated = RateLimiter.create(configuration().get(), "unrelated-test", null);
        open.add(unrelated);
        settings.put("tollgate.policies", "cdi-exports,cdi-slots");
        Limiters own = new Limiters(configuration(), "cdi-own-test");
        RateLimiter made = own.forCall(limit("export"));
        assertNotSame(unrelated, made, "a limiter without the policy is not used");
        assertTrue(RateLimiter.live().contains(made));
        assertSame(made, own.forCall(limit("nightly")), "one limiter of its own per application");
        own.close();
        assertFalse(RateLimiter.live().contains(made), "closed when the application stops");
    }

    @Test
    void aLimiterThatCannotStartRefusesWith503RatherThanLetCallsThroughUnlimited() {
        settings.put("tollgate.policy.cdi-exports.limits", "many");
        CallLimiter calls = calls();
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                () -> calls.admit(limit("export"), new Object[] {"acme"}));
        assertEquals(503, e.answer().status());
        assertEquals(Decision.Verdict.UNAVAILABLE, e.decision().verdict());
        assertThrows(ConfigException.class, () -> configuration().get(), "as the filters' start would have said");
    }

    @Test
    void theClosedFailureModeRefusesWith503WhenTheStoreIsDown() {
        settings.put("tollgate.redis.uri", "redis://127.0.0.1:1");
        settings.put("tollgate.redis.failure-mode", "closed");
        CallLimiter calls = calls();
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                () -> calls.admit(limit("export"), new Object[] {"acme"}));
        assertEquals(503, e.answer().status());
        assertEquals(List.of(), e.policies(), "no policy refused: the store did");
        assertTrue(e.retryAfterSeconds() >= 1, e.getMessage());
    }

    static String header(HttpAnswer a, String name) {
        for (HttpAnswer.Header h : a.headers()) {
            if (h.name().equalsIgnoreCase(name)) {
                return h.value();
            }
        }
        return null;
    }
}
