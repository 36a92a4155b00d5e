package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import org.junit.jupiter.api.Test;

/**
 * Concurrency leases in a real Redis ({@code bucket.lua} algorithm {@code c}, {@code release.lua})
 * agree with {@link LeaseModel} on every verdict and number: acquire, release (twice too), expiry,
 * and all-or-nothing across two lease buckets and a token bucket. The script's clock is the test's.
 */
class RedisStoreLeaseIT extends OwnRedisProperties {

    @Test
    void theRedisStoreHoldsLeasesAsTheModelSays() {
        Tally tally = new Tally();
        qt(150).forAll(LeaseModel.scenarios(60)).checkAssert(scenario -> holdsLeasesAsTheModelSays(scenario, tally));
        tally.reached("refused by a lease");
        tally.reached("released");
        tally.reached("expired");
        System.out.println("RedisStoreLeaseIT: " + tally);
    }

    private void holdsLeasesAsTheModelSays(LeaseModel.Scenario scenario, Tally tally) {
        redis.command("FLUSHALL");
        ManualClock clock = new ManualClock();
        RedisStore store = new RedisStore(port, clock::nowMicros);
        LeaseModel model = new LeaseModel();
        model.play(scenario, clock, store::acquire, store::release);
        tally.count("refused by a lease", model.refusedByLeases > 0);
        tally.count("released", model.released > 0);
        tally.count("expired", model.expired > 0);
    }
}
