package dev.tollgate.internal.redis;

import dev.tollgate.internal.engine.LeasingNodes;
import dev.tollgate.testing.ManualClock;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * {@code TokenLeasesProperties} against a real Redis: several nodes' token leases sharing one
 * Redis ({@code bucket.lua}, the script's clock the test's), every call as the GCRA model says,
 * and what they admit within {@code C + ⌊r·t⌋ + nodes·k} and {@code C + ⌊r·(t + hold)⌋}.
 */
class TokenLeasesRedisIT extends OwnRedisProperties {

    @Property(tries = 60)
    void nodesSharingRedisAdmitNoMoreThanTheBound(@ForAll("scenarios") LeasingNodes.Scenario scenario) {
        redis.command("FLUSHALL");
        ManualClock clock = new ManualClock();
        RedisStore store = new RedisStore(port, clock::nowMicros);
        LeasingNodes.Run run = LeasingNodes.play(scenario, clock, store::acquire);
        Statistics.label("answered from a lease").collect(run.leased > 0);
        Statistics.label("a lease Redis could not give").collect(run.refusedFetches > 0);
    }

    @Provide
    Arbitrary<LeasingNodes.Scenario> scenarios() {
        return LeasingNodes.scenarios(80);
    }
}
