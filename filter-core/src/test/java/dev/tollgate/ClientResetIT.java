package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An operator's look at one client, and its reset, through the limiter's JMX bean on a real
 * Redis: tokens left and time to full, a calendar quota's window, leases in flight, then a reset
 * that gives the client full buckets (and only that client), logged with who asked and the client
 * by fingerprint, never in the clear.
 */
@WithRedis
class ClientResetIT {

    static final String CLIENT = "198.51.100.23";
    static final String OTHER = "198.51.100.24";

    final List<String> log = new ArrayList<>();
    final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            synchronized (log) {
                log.add(r.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    final Logger tollgateLogger = Logger.getLogger("dev.tollgate");

    @AfterEach
    void removeCapture() {
        tollgateLogger.removeHandler(capture);
    }

    @Test
    void jmxShowsAClientsBucketsAndResetsThemForThatClientOnly(RedisProcess redis) throws Exception {
        TollgateConfig c = TestConfigs.of(
                "tollgate.redis.uri", redis.uri(),
                "tollgate.redis.timeout", "2s",
                "tollgate.deny-cache", "false",
                "tollgate.policies", "api,daily,slots",
                "tollgate.policy.api.limits", "3/min",
                "tollgate.policy.daily.limits", "5/day calendar",
                "tollgate.policy.slots.limits", "100/s",
                "tollgate.policy.slots.concurrency", "4");
        tollgateLogger.addHandler(capture);
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName bean = new ObjectName("dev.tollgate:type=RateLimiter,name=" + ObjectName.quote("client-reset"));
        try (RateLimiter rl = RateLimiter.create(c, "client-reset", null)) {
            List<Decision> held = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                held.add(rl.check(TestRequest.get("/api").from(CLIENT))); // 3 admitted, the 4th refused by api
            }
            assertTrue(held.get(0).allowed());
            assertFalse(held.get(3).allowed(), "api allows 3 a minute");
            assertTrue(rl.check(TestRequest.get("/api").from(OTHER)).allowed());

            String api = inspect(jmx, bean, "api", "ip=" + CLIENT);
            System.out.println("[client-reset] inspect api before:\n" + api);
            assertTrue(api.contains("3/min: 0 of 3 tokens left, full in "), api);
            String daily = inspect(jmx, bean, "daily", "ip=" + CLIENT);
            System.out.println("[client-reset] inspect daily before:\n" + daily);
            assertTrue(daily.contains("5/day calendar: 2 of 5 left in this window, which ends in "),
                    "3 admitted requests counted; the refused one took nothing: " + daily);
            String slots = inspect(jmx, bean, "slots", "ip=" + CLIENT);
            System.out.println("[client-reset] inspect slots before:\n" + slots);
            assertTrue(slots.contains("leases in flight: 3 of 4"), "three admitted requests hold a lease each: " + slots);

            String done = (String) jmx.invoke(bean, "reset", new Object[] {"api", "ip=" + CLIENT},
                    new String[] {String.class.getName(), String.class.getName()});
            System.out.println("[client-reset] " + done);
            assertTrue(done.startsWith("reset: policy api, client ip=" + CLIENT + ": 1 of 2 keys deleted"), done);
            String after = inspect(jmx, bean, "api", "ip=" + CLIENT);
            System.out.println("[client-reset] inspect api after:\n" + after);
            assertTrue(after.contains("not stored: full") && after.contains("3/min: 3 of 3 tokens left, full in 0.000 s"), after);
            assertTrue(inspect(jmx, bean, "daily", "ip=" + CLIENT).contains("2 of 5 left"), "other policies untouched");
            assertTrue(inspect(jmx, bean, "api", "ip=" + OTHER).contains("2 of 3 tokens left"), "other clients untouched");
            assertTrue(rl.check(TestRequest.get("/api").from(CLIENT)).allowed(), "the client is admitted again");

            List<String> lines;
            synchronized (log) {
                lines = new ArrayList<>(log);
            }
            List<String> resets = lines.stream().filter(l -> l.startsWith("TOLLGATE-040")).toList();
            System.out.println("[client-reset] the log: " + resets);
            assertEquals(1, resets.size(), lines.toString());
            assertTrue(resets.get(0).contains("client ip#") && resets.get(0).contains("under policy 'api' were reset by jmx"),
                    resets.get(0));
            for (String line : lines) {
                assertFalse(line.contains(CLIENT), "the client in the clear in the log: " + line);
            }

            String unknown = inspect(jmx, bean, "nope", "ip=" + CLIENT);
            assertTrue(unknown.startsWith("not inspected: TOLLGATE-003"), unknown);
        }
    }

    private static String inspect(MBeanServer jmx, ObjectName bean, String policy, String client) throws Exception {
        return (String) jmx.invoke(bean, "inspect", new Object[] {policy, client},
                new String[] {String.class.getName(), String.class.getName()});
    }
}
