package dev.tollgate.internal.redis;

import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** The in-memory store keeps concurrency leases exactly as {@link LeaseModel} says. */
class LocalStoreLeaseTest {

    @Property(tries = 300, edgeCases = EdgeCasesMode.MIXIN)
    void theLocalStoreHoldsLeasesAsTheModelSays(@ForAll("scenarios") LeaseModel.Scenario scenario) {
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(1000, clock::nowMicros);
        LeaseModel model = new LeaseModel();
        model.play(scenario, clock, store::acquire, store::release);
        Statistics.label("refused by a lease").collect(model.refusedByLeases > 0);
        Statistics.label("released").collect(model.released > 0);
        Statistics.label("expired").collect(model.expired > 0);
    }

    @Provide
    Arbitrary<LeaseModel.Scenario> scenarios() {
        return LeaseModel.scenarios(60);
    }
}
