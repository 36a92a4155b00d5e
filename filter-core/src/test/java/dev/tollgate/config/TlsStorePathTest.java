package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.text.Accepted;
import dev.tollgate.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS trust or key store must name a readable file, checked by the configuration itself, with or
 * without a Redis to use it: what the file holds is checked when the engine opens the connection
 * ({@code OpenChecks}), but a path to nothing is a bad value at every start.
 */
class TlsStorePathTest {

    private static final String LIMITS = "tollgate.policy.default.limits";

    @TempDir
    Path dir;

    @Test
    void aStoreThatIsNoFileStopsTheStartEvenWithoutARedis() {
        String missing = dir.resolve("absent-ca.pem").toString();
        ConfigException e = assertThrows(ConfigException.class,
                () -> TestConfigs.of(LIMITS, "10/s", Settings.REDIS_TLS_TRUSTSTORE.name(), missing));
        assertEquals(1, e.problems().size(), e.problems().toString());
        String p = e.problems().get(0);
        assertTrue(p.startsWith("TOLLGATE-001: " + Settings.REDIS_TLS_TRUSTSTORE.name() + " = '" + missing + "'"), p);
        assertTrue(p.contains("the file does not exist") && p.contains("Accepted: " + Accepted.TLS_TRUSTSTORE), p);
    }

    @Test
    void aDirectoryIsNoKeyStore() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> TestConfigs.of(LIMITS, "10/s", Settings.REDIS_TLS_KEYSTORE.name(), dir.toString(), Settings.REDIS_TLS_KEYSTORE_PASSWORD.name(), "pw"));
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("TOLLGATE-001: " + Settings.REDIS_TLS_KEYSTORE.name() + " = ")
                && p.contains("it is a directory, not a file")), e.problems().toString());
    }

    @Test
    void aReadableFileLoadsWhatItHoldsIsTheEnginesToJudge() throws IOException {
        Path file = Files.writeString(dir.resolve("ca.pem"), "not yet a certificate");
        assertNotNull(TestConfigs.of(LIMITS, "10/s", Settings.REDIS_TLS_TRUSTSTORE.name(), file.toString()));
    }
}
