package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRedis;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A migration from javax to jakarta, half done: the same application on a Tomcat 9 node (the javax
 * build, at {@code /legacy-app}) and a Tomcat 10.1 node (the jakarta build, at {@code /servlet-app}),
 * one Redis, one key prefix, one policy ({@code 1/min burst 6}: no refill while the test runs), and
 * one {@code tollgate.namespace} set by the operator on both, since their context paths differ.
 * Requests alternate between the nodes: together they admit one burst, not one each, through one
 * bucket key, and neither reports a namespace collision (TOLLGATE-015): both builds record the same policy.
 */
class JavaxSharedBucketsIT {

    private static final int REQUESTS = 16;
    private static final int BURST = 6;

    @Test
    void aJavaxNodeAndAJakartaNodeShareOneBucket() {
        RedisEndpoint redis = TestRedis.shared();
        String prefix = "migration-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        Deployment legacy = new Deployment(Build.warsDir().resolve(Javax.SERVLET_APP.warFile()), "legacy-app");
        Deployment current = App.SERVLET_APP.deployment();
        try (ServerProcess javax = node(Launch.of(Javax.tomcat9(), legacy, "shared-bucket"), redis, prefix).start();
             ServerProcess jakarta = node(Launch.of(Servers.tomcat10(), current, "shared-bucket-jakarta"), redis, prefix).start()) {
            int[] admitted = new int[2];
            for (int i = 0; i < REQUESTS; i++) {
                boolean onJavax = i % 2 == 0;
                int status = onJavax ? javax.get(legacy, "/api/hello").statusCode() : jakarta.get(current, "/api/hello").statusCode();
                assertTrue(status == 200 || status == 429, "status " + status);
                admitted[onJavax ? 0 : 1] += status == 200 ? 1 : 0;
            }
            System.out.printf("[servers-it] %s and %s, namespace 'shop', 1/min burst %d: %d requests alternating,"
                    + " admitted %d on javax and %d on jakarta%n", javax.title(), jakarta.title(), BURST, REQUESTS,
                    admitted[0], admitted[1]);
            assertEquals(BURST, admitted[0] + admitted[1], "one burst between the two nodes");
            assertEquals(BURST / 2, admitted[0], "alternating, each node took its half of the one bucket");
            List<String> buckets = redis.command("KEYS", prefix + "*{*").lines().sorted().toList();
            assertEquals(List.of(prefix + "shop:{ip=127.0.0.1}:default"), buckets, "one bucket for both nodes");
            for (ServerProcess node : List.of(javax, jakarta)) {
                assertTrue(node.logLines("TOLLGATE-010").stream().anyMatch(l -> l.contains("namespace 'shop'")),
                        node.title() + ": " + node.logLines("TOLLGATE-010"));
                // The namespace's policy record (shop:policy:default) is the same from both builds: no collision reported.
                assertEquals(List.of(), node.logLines("TOLLGATE-015"), node.title());
            }
        }
    }

    private static Launch node(Launch launch, RedisEndpoint redis, String prefix) {
        return launch.env("TOLLGATE_REDIS_URI", redis.uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", prefix)
                .env("TOLLGATE_REDIS_TIMEOUT", "2s")
                .env("TOLLGATE_NAMESPACE", "shop")
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", "1/min burst " + BURST);
    }
}
