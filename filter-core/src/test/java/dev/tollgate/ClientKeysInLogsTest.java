package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.identity.ClientKeys;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A client's key (an API key, an address, an e-mail address of a {@code @RateLimitKey}) never
 * appears in the clear in a log line at the default level, nor in a {@code Decision}'s or a
 * {@code PolicyResult}'s text (issue 21: {@code TOLLGATE-031} logged {@code header.x-api-key=sk_live_…}).
 * {@code tollgate.log.client-keys=clear} shows it, for debugging.
 */
class ClientKeysInLogsTest {

    static final String SECRET = "sk_live_51HxQf8Secret";

    static List<String> refusalLogged(String clientKeys) {
        Map<String, String> m = new HashMap<>(Map.of("tollgate.metrics", "none", "tollgate.jmx", "false",
                "tollgate.policy.default.limits", "1/min", "tollgate.policy.default.key", "header:X-Api-Key"));
        if (clientKeys != null) {
            m.put("tollgate.log.client-keys", clientKeys);
        }
        List<String> lines = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.INFO.intValue()) {
                    synchronized (lines) {
                        lines.add(r.getMessage() + (r.getThrown() != null ? " " + r.getThrown() : ""));
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("dev.tollgate");
        log.addHandler(h);
        try (RateLimiter rl = RateLimiter.create(TestConfigs.of(m))) {
            TestRequest request = TestRequest.get("/api").from("192.0.2.9").header("X-Api-Key", SECRET);
            assertEquals(Decision.Verdict.ALLOW, rl.check(request).verdict());
            Decision refused = rl.check(request);
            assertEquals(Decision.Verdict.DENY, refused.verdict());
            lines.add(refused.toString());
        } finally {
            log.removeHandler(h);
        }
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    @Test
    void aRefusedApiKeyIsLoggedByItsKindAndAFingerprint() {
        List<String> lines = refusalLogged(null);
        assertTrue(lines.stream().anyMatch(l -> l.contains("TOLLGATE-031") && l.matches(".*client header\\.x-api-key#[0-9a-f]{12} .*")),
                lines.toString());
        assertFalse(lines.stream().anyMatch(l -> l.contains(SECRET) || l.contains("192.0.2.9")), lines.toString());
    }

    @Test
    void clearShowsTheWholeKey() {
        List<String> lines = refusalLogged("clear");
        assertTrue(lines.stream().anyMatch(l -> l.contains("TOLLGATE-031") && l.contains("header.x-api-key=" + SECRET)),
                lines.toString());
    }

    @Test
    void aFingerprintTellsClientsApartAndOneClientAlike() {
        String a = ClientKeys.shown("ip=192.0.2.1", false);
        assertEquals(a, ClientKeys.shown("ip=192.0.2.1", false));
        assertNotEquals(a, ClientKeys.shown("ip=192.0.2.2", false));
        assertTrue(a.matches("ip#[0-9a-f]{12}"), a);
        // a key whose first part is no plain kind shows no part of itself
        assertTrue(ClientKeys.shown("Secret Token=x", false).matches("client#[0-9a-f]{12}"));
        assertEquals("ip=192.0.2.1", ClientKeys.shown("ip=192.0.2.1", true));
    }

    @Test
    void aBadValueIsRefusedNamingTheKey() {
        Map<String, String> m = Map.of("tollgate.log.client-keys", "hidden");
        String message = org.junit.jupiter.api.Assertions.assertThrows(dev.tollgate.config.ConfigException.class,
                () -> TestConfigs.of(m)).getMessage();
        assertTrue(message.contains("tollgate.log.client-keys") && message.contains("hidden") && message.contains("'masked' or 'clear'"),
                message);
    }
}
