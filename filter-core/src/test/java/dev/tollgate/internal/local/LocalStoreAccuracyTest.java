package dev.tollgate.internal.local;

import dev.tollgate.internal.bucket.AccuracyRun;
import dev.tollgate.internal.bucket.AccuracyScenario;
import dev.tollgate.internal.bucket.BucketModel;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.ManualClock;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The accuracy guarantee of the in-memory store, as a property: over random sequences of
 * requests, clock steps, reloads, plan changes, algorithm switches, cost and mode changes and
 * restarts, it agrees exactly with {@link BucketModel}, its Retry-After and {@code t} are
 * truthful, and what it admits stays within the bound ({@link AccuracyRun}). Time is a
 * {@link ManualClock}.
 */
public class LocalStoreAccuracyTest {

    @Property(tries = 400, edgeCases = EdgeCasesMode.NONE)
    void theLocalStoreAgreesWithTheModelAndKeepsItsPromises(@ForAll("scenarios") AccuracyScenario scenario) {
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
        // The generator must keep reaching the cases the guarantees are about.
        Statistics.label("a refusal").collect(run.refusals > 0).coverage(c -> c.check(true).percentage(p -> p >= 50));
        Statistics.label("a Retry-After obeyed").collect(run.retriesChecked > 0)
                .coverage(c -> c.check(true).percentage(p -> p >= 30));
        Statistics.label("a t probed").collect(run.nextsChecked > 0).coverage(c -> c.check(true).percentage(p -> p >= 40));
        Statistics.label("a debt forgiven").collect(run.forgivenCalls > 0)
                .coverage(c -> c.check(true).percentage(p -> p >= 5));
    }

    @Provide
    Arbitrary<AccuracyScenario> scenarios() {
        return AccuracyScenario.scenarios(60);
    }
}
