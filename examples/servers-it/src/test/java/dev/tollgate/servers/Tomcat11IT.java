package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Tomcat 11 (Servlet 6.1). The operator also passes a system property
 * ({@code -Dtollgate.redis.key-prefix}, as in {@code CATALINA_OPTS}) next to the environment
 * variable for the same key: the system property must win, in Tollgate's own lookup (servlet-app)
 * and in SmallRye Config's (jaxrs-app-tomcat).
 */
class Tomcat11IT extends TomcatContract {

    Tomcat11IT() {
        super(Servers.tomcat11());
    }

    @Override
    protected boolean prefixAlsoAsSystemProperty() {
        return true;
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(Tomcat11IT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(Tomcat11IT.this, App.JAXRS_APP_TOMCAT);
        }
    }

    /**
     * A rolling redeploy that adds a limit, as an operator does it: two Tomcats sharing one Redis,
     * the old version with {@code 1/min burst 3}, the new one with {@code 1/min burst 3; 100/day},
     * and a client alternating between them. At most the old burst plus one fresh burst pass
     * (issue 21: 20 of 20 did, each node reading the other's state as full).
     */
    @Test
    void aRollingRedeployThatAddsALimitGivesAtMostOneFreshBurst() {
        String prefix = newKeyPrefix("rolling");
        try (ServerProcess old = launch("rolling-old", App.SERVLET_APP, prefix)
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", "1/min burst 3").start();
             ServerProcess next = launch("rolling-new", App.SERVLET_APP, prefix)
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", "1/min burst 3; 100/day").start()) {
            for (ServerProcess s : List.of(old, next)) {
                s.awaitStatus(App.SERVLET_APP.freePath(), 404, Duration.ofSeconds(60)); // deployed, no token spent
            }
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                statuses.add((i % 2 == 0 ? old : next).get(App.SERVLET_APP.limitedPath()).statusCode());
            }
            long passed = statuses.stream().filter(s -> s == 200).count();
            System.out.println("[servers-it] rolling redeploy on two Tomcats, a client alternating: " + statuses);
            assertTrue(passed <= 3 + 3, passed + " of 20 passed: " + statuses);
        }
    }
}
