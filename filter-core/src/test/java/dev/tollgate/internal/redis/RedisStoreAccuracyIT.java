package dev.tollgate.internal.redis;

import dev.tollgate.internal.bucket.AccuracyRun;
import dev.tollgate.internal.bucket.AccuracyScenario;
import dev.tollgate.internal.bucket.BucketModel;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.local.LocalStoreAccuracyTest;
import dev.tollgate.testing.ManualClock;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The accuracy guarantee of the Redis store on a real Redis, the same property as
 * {@link LocalStoreAccuracyTest}: the script agrees exactly with {@link BucketModel} over random
 * sequences of requests and operational changes. Its clock is the test's (the store's clock
 * override); a restart is {@code FLUSHALL} and {@code SCRIPT FLUSH}, what a Redis restarted
 * without persistence has lost. The Redis is this class's own process, so flushing it disturbs
 * no other test.
 */
class RedisStoreAccuracyIT extends OwnRedisProperties {

    @Property(tries = 120, edgeCases = EdgeCasesMode.NONE)
    void theRedisStoreAgreesWithTheModelAndKeepsItsPromises(@ForAll("scenarios") AccuracyScenario scenario) {
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
        Statistics.label("a refusal").collect(run.refusals > 0);
        Statistics.label("a Retry-After obeyed").collect(run.retriesChecked > 0);
        Statistics.label("a t probed").collect(run.nextsChecked > 0);
        Statistics.label("a debt forgiven").collect(run.forgivenCalls > 0);
    }

    @Provide
    Arbitrary<AccuracyScenario> scenarios() {
        return AccuracyScenario.scenarios(60);
    }
}
