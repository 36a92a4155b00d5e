package dev.tollgate.internal.engine;

import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Token leasing keeps the bound the README states, across nodes sharing one store (here the
 * in-memory store; {@code TokenLeasesRedisIT} runs the same against Redis): every store call is
 * what an exact GCRA model answers, and what the nodes admit in any interval of length t is at
 * most {@code C + ⌊r·t⌋ + nodes·k} and at most {@code C + ⌊r·(t + hold)⌋}.
 */
class TokenLeasesProperties {

    @Property(tries = 400)
    void nodesSharingAStoreAdmitNoMoreThanTheBound(@ForAll("scenarios") LeasingNodes.Scenario scenario) {
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(1_000, clock::nowMicros);
        LeasingNodes.Run run = LeasingNodes.play(scenario, clock, store::acquire);
        Statistics.label("answered from a lease").collect(run.leased > 0);
        Statistics.label("a lease the store could not give").collect(run.refusedFetches > 0);
        Statistics.label("refused").collect(run.refused > 0);
        Statistics.label("nodes").collect(scenario.nodes());
    }

    @Provide
    Arbitrary<LeasingNodes.Scenario> scenarios() {
        return LeasingNodes.scenarios(120);
    }
}
