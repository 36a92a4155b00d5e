package dev.tollgate.internal.redis;

import dev.tollgate.testing.ManualClock;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Concurrency leases in a real Redis ({@code bucket.lua} algorithm {@code c}, {@code release.lua})
 * agree with {@link LeaseModel} on every verdict and number: acquire, release (twice too), expiry,
 * and all-or-nothing across two lease buckets and a token bucket. The script's clock is the test's.
 */
class RedisStoreLeaseIT extends OwnRedisProperties {

    @Property(tries = 150, edgeCases = EdgeCasesMode.MIXIN)
    void theRedisStoreHoldsLeasesAsTheModelSays(@ForAll("scenarios") LeaseModel.Scenario scenario) {
        redis.command("FLUSHALL");
        ManualClock clock = new ManualClock();
        RedisStore store = new RedisStore(port, clock::nowMicros);
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
