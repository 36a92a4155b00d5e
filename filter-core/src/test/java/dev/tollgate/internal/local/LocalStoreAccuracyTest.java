package dev.tollgate.internal.local;

import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.internal.bucket.AccuracyRun;
import dev.tollgate.internal.bucket.AccuracyScenario;
import dev.tollgate.internal.bucket.BucketModel;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The accuracy guarantee of the in-memory store, as a property: over random sequences of
 * requests, clock steps, reloads, plan changes, algorithm switches, cost and mode changes and
 * restarts, it agrees exactly with {@link BucketModel}, its Retry-After and {@code t} are
 * truthful, and what it admits stays within the bound ({@link AccuracyRun}). Time is a
 * {@link ManualClock}.
 */
public class LocalStoreAccuracyTest {

    @Test
    void theLocalStoreAgreesWithTheModelAndKeepsItsPromises() {
        Tally tally = new Tally();
        qt(400).forAll(scenarios()).checkAssert(scenario -> theLocalStoreAgreesWithTheModelAndKeepsItsPromises(scenario, tally));
        System.out.println("[LocalStoreAccuracyTest] " + tally);
        // The generator must keep reaching the cases the guarantees are about.
        tally.atLeast("a refusal", 50);
        tally.atLeast("a Retry-After obeyed", 30);
        tally.atLeast("a t probed", 40);
        tally.atLeast("a debt forgiven", 5);
        tally.atLeast("a state of another configuration charged", 20);
    }

    private void theLocalStoreAgreesWithTheModelAndKeepsItsPromises(AccuracyScenario scenario, Tally tally) {
        ManualClock clock = new ManualClock();
        AccuracyRun run = new AccuracyRun(new AccuracyRun.Target() {
            LocalStore store = new LocalStore(100_000, clock::nowMicros);

            @Override
            public List<BucketReply> acquire(List<BucketRequest> requests) {
                return store.acquire(requests);
            }

            @Override
            public void restart() {
                store = new LocalStore(100_000, clock::nowMicros);
            }
        }, clock, scenario.setup());
        run.play(scenario.actions());
        tally.count("a refusal", run.refusals > 0);
        tally.count("a Retry-After obeyed", run.retriesChecked > 0);
        tally.count("a t probed", run.nextsChecked > 0);
        tally.count("a debt forgiven", run.forgivenCalls > 0);
        tally.count("a state of another configuration charged", run.foreignCharged > 0);
    }

    static Gen<AccuracyScenario> scenarios() {
        return AccuracyScenario.scenarios(60);
    }
}
