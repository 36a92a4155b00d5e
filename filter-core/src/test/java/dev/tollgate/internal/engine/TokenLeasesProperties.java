package dev.tollgate.internal.engine;

import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import org.junit.jupiter.api.Test;

/**
 * Token leasing keeps the bound docs/guarantees.md states, across nodes sharing one store (here the
 * in-memory store; {@code TokenLeasesRedisIT} runs the same against Redis): every store call is
 * what an exact GCRA model answers, and what the nodes admit in any interval of length t is at
 * most {@code C + ⌊r·t⌋ + nodes·k} and at most {@code C + ⌊r·(t + hold)⌋}.
 */
class TokenLeasesProperties {

    @Test
    void nodesSharingAStoreAdmitNoMoreThanTheBound() {
        Tally tally = new Tally();
        qt(400).forAll(LeasingNodes.scenarios(120)).checkAssert(scenario -> admitNoMoreThanTheBound(scenario, tally));
        tally.reached("answered from a lease");
        tally.reached("a lease the store could not give");
        System.out.println("TokenLeasesProperties: " + tally);
    }

    private void admitNoMoreThanTheBound(LeasingNodes.Scenario scenario, Tally tally) {
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(1_000, clock::nowMicros);
        LeasingNodes.Run run = LeasingNodes.play(scenario, clock, store::acquire);
        tally.count("answered from a lease", run.leased > 0);
        tally.count("a lease the store could not give", run.refusedFetches > 0);
        tally.count("refused", run.refused > 0);
        for (int nodes = 1; nodes <= 4; nodes++) {
            tally.count("nodes " + nodes, scenario.nodes() == nodes);
        }
    }
}
