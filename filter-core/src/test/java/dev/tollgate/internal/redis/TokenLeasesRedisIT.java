package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.internal.engine.LeasingNodes;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import org.junit.jupiter.api.Test;

/**
 * {@code TokenLeasesProperties} against a real Redis: several nodes' token leases sharing one
 * Redis ({@code bucket.lua}, the script's clock the test's), every call as the GCRA model says,
 * and what they admit within {@code C + ⌊r·t⌋ + nodes·k} and {@code C + ⌊r·(t + hold)⌋}.
 */
class TokenLeasesRedisIT extends OwnRedisProperties {

    @Test
    void nodesSharingRedisAdmitNoMoreThanTheBound() {
        Tally tally = new Tally();
        qt(60).forAll(LeasingNodes.scenarios(80)).checkAssert(scenario -> admitNoMoreThanTheBound(scenario, tally));
        tally.reached("answered from a lease");
        tally.reached("a lease Redis could not give");
        System.out.println("TokenLeasesRedisIT: " + tally);
    }

    private void admitNoMoreThanTheBound(LeasingNodes.Scenario scenario, Tally tally) {
        redis.command("FLUSHALL");
        ManualClock clock = new ManualClock();
        RedisStore store = new RedisStore(port, clock::nowMicros);
        LeasingNodes.Run run = LeasingNodes.play(scenario, clock, store::acquire);
        tally.count("answered from a lease", run.leased > 0);
        tally.count("a lease Redis could not give", run.refusedFetches > 0);
    }
}
