package dev.tollgate.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The whole system under faults and change: each seed is one {@link Run} of three limiter nodes
 * against a real {@code redis-server}, every fault and change of the {@link Nemesis} mixed, and the
 * {@link Checker} holding the history to the bounds of docs/guarantees.md. CI runs the fixed seeds below, one
 * failure mode each in turn, on one redis-server, and {@link FaultHarnessClusterIT}'s on a Redis Cluster,
 * the two classes in two JVMs at once; {@code -Dsoak=30m} runs new seeds for that long instead. A failure
 * prints its seed and the shortest slice of history that breaks a bound; run the same seed again
 * with {@code -Dfaults.seed=N}.
 */
class FaultHarnessIT {

    static final String[] FAILURE_MODES = {"open", "closed", "local"};

    /** Seeds from 7 on run on a Redis Cluster (failover, slot migrations, node deaths); the others on one redis-server. */
    static Run.Options options(long seed) {
        boolean cluster = Math.floorMod(seed, 8) == 7;
        return new Run.Options(3, 12_000, FAILURE_MODES[(int) Math.floorMod(seed, 3)],
                cluster ? Nemesis.Fault.CLUSTER : Nemesis.Fault.STANDALONE, true, cluster);
    }

    static void runAndCheck(long seed) throws InterruptedException {
        Run.Options o = options(seed);
        System.out.println("[faults] seed " + seed + ": " + o);
        Run.Result r = Run.run(seed, o);
        System.out.println("[faults] " + r.summary());
        assertTrue(r.violations().isEmpty(), () -> "seed " + seed + " (replay: -Dfaults.seed=" + seed + "): "
                + r.violations().size() + " bounds broken\n" + String.join("\n\n", r.violations()));
    }

    /** One redis-server, each failure mode in turn (the Cluster's seeds: {@link FaultHarnessClusterIT}). */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theHistoryKeepsEveryBound(long seed) throws InterruptedException {
        String replay = System.getProperty("faults.seed", "");
        Assumptions.assumeTrue(replay.isEmpty() || seed == 1, "replaying seed " + replay + " once");
        runAndCheck(replay.isEmpty() ? seed : Long.parseLong(replay));
    }

    /** {@code -Dsoak=30m}: new seeds, one after the other, for that long; without it, skipped (and reported so). */
    @Test
    void soak() throws InterruptedException {
        String soak = System.getProperty("soak", "0");
        Assumptions.assumeFalse(soak.equals("0") || soak.isEmpty(), "no soak asked: -Dsoak=30m runs new seeds for 30 minutes");
        Duration length = Duration.parse("PT" + soak.toUpperCase());
        long end = System.nanoTime() + length.toNanos();
        SplittableRandom seeds = new SplittableRandom();
        List<String> failures = new ArrayList<>();
        while (System.nanoTime() < end) {
            long seed = seeds.nextLong(1_000_000_000L);
            try {
                runAndCheck(seed);
            } catch (AssertionError e) {
                failures.add(e.getMessage());
                System.out.println(e.getMessage());
            }
        }
        assertTrue(failures.isEmpty(), () -> String.join("\n\n", failures));
    }
}
