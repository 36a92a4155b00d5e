package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import org.junit.jupiter.api.Test;

/** The in-memory store keeps concurrency leases exactly as {@link LeaseModel} says. */
class LocalStoreLeaseTest {

    @Test
    void theLocalStoreHoldsLeasesAsTheModelSays() {
        Tally tally = new Tally();
        qt(300).forAll(LeaseModel.scenarios(60)).checkAssert(scenario -> holdsLeasesAsTheModelSays(scenario, tally));
        tally.reached("refused by a lease");
        tally.reached("released");
        tally.reached("expired");
        System.out.println("LocalStoreLeaseTest: " + tally);
    }

    private void holdsLeasesAsTheModelSays(LeaseModel.Scenario scenario, Tally tally) {
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(1000, clock::nowMicros);
        LeaseModel model = new LeaseModel();
        model.play(scenario, clock, store::acquire, store::release);
        tally.count("refused by a lease", model.refusedByLeases > 0);
        tally.count("released", model.released > 0);
        tally.count("expired", model.expired > 0);
    }
}
