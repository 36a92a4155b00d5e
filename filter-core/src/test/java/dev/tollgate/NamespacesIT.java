package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: two applications on one Redis, each with its own limits for the policy
 * {@code default}. Apart by default (each namespace its application's context path), shared only
 * when an operator gives them one namespace, and a mistaken shared namespace is said, once.
 * Limits are 1/s: 20 quick requests admit the burst, and at most one token more that refilled
 * while they ran (the bounds below allow it).
 */
@WithRedis
class NamespacesIT {

    private final List<LogRecord> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            synchronized (logged) {
                logged.add(r);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger log = Logger.getLogger("dev.tollgate");
    private String prefix;

    @BeforeEach
    void listen() {
        log.addHandler(capture);
        prefix = "ns-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    @AfterEach
    void stop() {
        log.removeHandler(capture);
    }

    @Test
    void twoApplicationsOnOneRedisEachKeepTheirOwnAllowance(RedisEndpoint redis) {
        try (RateLimiter examples = RateLimiter.create(application(redis, "/examples", "1/s burst 5", Map.of()));
             RateLimiter shop = RateLimiter.create(application(redis, "/shop", "1/s burst 12", Map.of()))) {
            int a = admitted(examples, 20);
            int b = admitted(shop, 20);
            System.out.printf("[namespaces] /examples admitted %d, /shop admitted %d of 20 each%n", a, b);
            assertTrue(a >= 5 && a <= 6, "/examples, burst 5: " + a);
            assertTrue(b >= 12 && b <= 13, "/shop, burst 12, kept its whole allowance: " + b);
            List<String> keys = List.of(redis.command("KEYS", prefix + "*").split("\n"));
            assertTrue(keys.contains(prefix + "/examples:{ip=127.0.0.1}:default"), keys.toString());
            assertTrue(keys.contains(prefix + "/shop:{ip=127.0.0.1}:default"), keys.toString());
            assertEquals(List.of(), conflicts(), "nothing shared, nothing said");
        }
    }

    @Test
    void twoNodesOfOneApplicationShareOneBucket(RedisEndpoint redis) {
        TollgateConfig c = application(redis, "/shop", "1/s burst 12", Map.of());
        try (RateLimiter node1 = RateLimiter.create(c); RateLimiter node2 = RateLimiter.create(c)) {
            int both = admitted(node1, 10) + admitted(node2, 10);
            assertTrue(both >= 12 && both <= 13, "two nodes of /shop admit one burst between them: " + both);
            assertEquals(List.of(), conflicts());
        }
    }

    @Test
    void aNamespaceSetOnPurposeIsShared(RedisEndpoint redis) {
        Map<String, String> shared = Map.of("tollgate.namespace", "storefront");
        try (RateLimiter shop = RateLimiter.create(application(redis, "/shop", "1/s burst 12", shared));
             RateLimiter checkout = RateLimiter.create(application(redis, "/checkout", "1/s burst 12", shared))) {
            assertEquals("storefront", shop.config().namespace().value());
            int both = admitted(shop, 10) + admitted(checkout, 10);
            assertTrue(both >= 12 && both <= 13, "one namespace, one bucket: " + both);
            assertEquals(List.of(), conflicts(), "the same limits: sharing on purpose is not a conflict");
        }
    }

    @Test
    void aMistakenSharedNamespaceIsSaidOnceNamingThePolicy(RedisEndpoint redis) {
        Map<String, String> shared = Map.of("tollgate.namespace", "storefront");
        try (RateLimiter examples = RateLimiter.create(application(redis, "/examples", "1/s burst 5", shared));
             RateLimiter shop = RateLimiter.create(application(redis, "/shop", "1/s burst 12", shared))) {
            List<String> said = conflicts();
            assertEquals(1, said.size(), "said once, at the second application's start: " + said);
            assertTrue(said.get(0).contains("policy 'default'") && said.get(0).contains("namespace 'storefront'")
                    && !said.get(0).contains("127.0.0.1"), said.get(0));
            admitted(shop, 5);
            try (RateLimiter again = RateLimiter.create(application(redis, "/shop", "1/s burst 12", shared))) {
                assertEquals(2, conflicts().size(), "a node of its own says it once too");
            }
            admitted(examples, 5);
            assertEquals(2, conflicts().size(), "no more while they run");
        }
    }

    @Test
    void theStartUpLineSaysWhichNamespaceAndWhereItCameFrom(RedisEndpoint redis) {
        try (RateLimiter shop = RateLimiter.create(application(redis, "/shop", "1/s burst 12", Map.of()), "/shop tollgate",
                null)) {
            String started = started();
            assertTrue(started.contains("namespace '/shop' (the application's context path)"), started);
        }
        try (RateLimiter set = RateLimiter.create(application(redis, "/shop", "1/s burst 12",
                Map.of("tollgate.namespace", "store{front}\u00e9")), "/shop tollgate", null)) {
            String started = started();
            assertTrue(started.contains("namespace 'store%7Bfront%7D%C3%A9' (map)"), started);
        }
    }

    private String started() {
        synchronized (logged) {
            return logged.stream().map(LogRecord::getMessage).filter(m -> m.startsWith(Messages.STARTED))
                    .reduce((a, b) -> b).orElse("");
        }
    }

    private List<String> conflicts() {
        synchronized (logged) {
            return logged.stream().map(LogRecord::getMessage).filter(m -> m.startsWith(Messages.NAMESPACE_SHARED)).toList();
        }
    }

    /** An application's configuration as a servlet container gives it: its settings, then its context path. */
    private TollgateConfig application(RedisEndpoint redis, String contextPath, String limits, Map<String, String> more) {
        Map<String, String> values = new LinkedHashMap<>(more);
        values.put("tollgate.redis.uri", redis.uri());
        values.put("tollgate.redis.timeout", "2s");
        values.put("tollgate.redis.key-prefix", prefix);
        values.put("tollgate.policy.default.limits", limits);
        ClassLoader application = new URLClassLoader(new URL[0], getClass().getClassLoader());
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("map", values),
                ConfigSources.application(application, contextPath, "Display " + contextPath)), null);
    }

    private static int admitted(RateLimiter limiter, int requests) {
        int n = 0;
        for (int i = 0; i < requests; i++) {
            if (limiter.check(TestRequest.get("/").from("127.0.0.1")).allowed()) {
                n++;
            }
        }
        return n;
    }
}
