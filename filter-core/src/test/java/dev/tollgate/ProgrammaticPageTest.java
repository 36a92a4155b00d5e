package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.examples.NightlyExport;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/programmatic.md shows the batch job {@link NightlyExport} as it is, with the configuration
 * it runs under here, and says what a run does: this runs it (on a clock it moves, which the
 * limiter's waits move too) and holds the page to what happened.
 */
class ProgrammaticPageTest {

    static final Path PAGE = ReadmeTest.ROOT.resolve("docs/programmatic.md");
    static final Path JOB = ReadmeTest.ROOT.resolve("filter-core/src/test/java/dev/tollgate/examples/NightlyExport.java");

    static final String[] CONFIG = {
        "tollgate.policies=exports",
        "tollgate.policy.exports.limits=1/min burst 5",
        "tollgate.policy.exports.key=header:X-Tenant",
        "tollgate.policy.exports.match=GET /api/export/**"};

    @Test
    void thePageQuotesTheJobAndItsConfigurationAsTheyAre() throws IOException {
        String page = Files.readString(PAGE);
        String source = Files.readString(JOB);
        int start = source.indexOf("    public List<String> run(");
        int end = source.indexOf("\n    }\n", start) + "\n    }".length();
        String run = source.substring(start, end);
        assertTrue(page.contains("```java\n" + run + "\n```"), PAGE + " quotes NightlyExport.run as in " + JOB + ":\n" + run);
        assertTrue(page.contains("```properties\n" + String.join("\n", CONFIG) + "\n```"), PAGE + " shows the job's configuration");
    }

    @Test
    void theJobRunsAsThePageSays() throws InterruptedException {
        ManualClock clock = new ManualClock();
        List<Duration> slept = new ArrayList<>();
        Limiter.Waits waits = new Limiter.Waits() {
            @Override
            public long nanoTime() {
                return clock.nowMicros() * 1000;
            }

            @Override
            public void sleep(long nanos) {
                slept.add(Duration.ofNanos(nanos));
                clock.advanceMicros(nanos / 1000);
            }
        };
        List<String> kv = new ArrayList<>();
        for (String line : CONFIG) {
            kv.add(line.substring(0, line.indexOf('=')));
            kv.add(line.substring(line.indexOf('=') + 1));
        }
        TollgateConfig config = TestConfigs.of(kv.toArray(String[]::new));
        RateLimiter engine = new RateLimiter(config, new LocalStore(1_000, clock::nowMicros), null, System::nanoTime);
        List<String> exported = new ArrayList<>();
        try (Limiter limiter = new Limiter(engine, true, waits)) {
            List<String> skipped = new NightlyExport(limiter).run(List.of("acme", "globex", "acme", "acme"), exported::add);
            assertEquals(List.of("acme", "globex", "acme"), exported);
            assertEquals(List.of("acme"), skipped);
            assertEquals(List.of(Duration.ofMinutes(1)), slept, "one wait of a minute, none for the skipped tenant");
            // the API's requests of those tenants draw from the same budget: acme's is spent; globex had 2
            // left, and gained one in the minute acme waited
            Decision acme = engine.check(TestRequest.get("/api/export/1").header("X-Tenant", "acme"));
            assertEquals(Decision.Verdict.DENY, acme.verdict());
            Decision globex = engine.check(TestRequest.get("/api/export/1").header("X-Tenant", "globex"));
            assertEquals(2, globex.results().get(0).limits().get(0).remaining());
        }
    }
}
