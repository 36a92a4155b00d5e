package dev.tollgate.faults;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FaultHarnessIT} on a three-master Redis Cluster with replicas: the seeds below are those
 * {@link FaultHarnessIT#options} sends to a Cluster (a seed of 7 modulo 8), one per failure mode
 * ({@code closed}, {@code open}, {@code local}); the nemesis kills masters (a replica is promoted)
 * and migrates the slots of clients' keys while requests run. A class of its own so that failsafe
 * runs it in a JVM beside {@link FaultHarnessIT}'s (each installs its log handler on the
 * {@code dev.tollgate} logger, so two runs never share a JVM).
 */
class FaultHarnessClusterIT {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 15, 23})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theHistoryKeepsEveryBoundOnACluster(long seed) throws InterruptedException {
        Assumptions.assumeTrue(System.getProperty("faults.seed", "").isEmpty(),
                "replaying one seed: FaultHarnessIT runs it");
        FaultHarnessIT.runAndCheck(seed);
    }
}
