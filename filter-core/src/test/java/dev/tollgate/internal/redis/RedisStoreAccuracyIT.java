package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.internal.bucket.AccuracyRun;
import dev.tollgate.internal.bucket.AccuracyScenario;
import dev.tollgate.internal.bucket.BucketModel;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.local.LocalStoreAccuracyTest;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The accuracy guarantee of the Redis store on a real Redis, the same property as
 * {@link LocalStoreAccuracyTest}: the script agrees exactly with {@link BucketModel} over random
 * sequences of requests and operational changes. Its clock is the test's (the store's clock
 * override); a restart is {@code FLUSHALL} and {@code SCRIPT FLUSH}, what a Redis restarted
 * without persistence has lost. The Redis is this class's own process, so flushing it disturbs
 * no other test.
 */
class RedisStoreAccuracyIT extends OwnRedisProperties {

    @Test
    void theRedisStoreAgreesWithTheModelAndKeepsItsPromises() {
        Tally tally = new Tally();
        qt(120).forAll(scenarios()).checkAssert(scenario -> theRedisStoreAgreesWithTheModelAndKeepsItsPromises(scenario, tally));
        System.out.println("[RedisStoreAccuracyIT] " + tally);
        // the cases the guarantees are about: a refusal, a Retry-After sent again, a t probed
        tally.reached("a refusal");
        tally.reached("a Retry-After obeyed");
        tally.reached("a t probed");
    }

    private void theRedisStoreAgreesWithTheModelAndKeepsItsPromises(AccuracyScenario scenario, Tally tally) {
        redis.command("FLUSHALL");
        ManualClock clock = new ManualClock();
        RedisStore store = new RedisStore(port, clock::nowMicros);
        AccuracyRun run = new AccuracyRun(new AccuracyRun.Target() {
            @Override
            public List<BucketReply> acquire(List<BucketRequest> requests) {
                return store.acquire(requests);
            }

            @Override
            public void restart() {
                redis.command("FLUSHALL");
                redis.command("SCRIPT", "FLUSH");
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
