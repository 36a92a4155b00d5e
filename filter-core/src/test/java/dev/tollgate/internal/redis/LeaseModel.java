package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Concurrency;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.quicktheories.core.Gen;

/**
 * The reference model of concurrency leases: per lease bucket, the multiset of live leases with
 * their expiries, on a clock the test controls; plus one token bucket that never refills within
 * a scenario, to check all-or-nothing with a rate limit. A store is played the same actions and
 * must answer every verdict and every number as the model does.
 */
final class LeaseModel {

    /** Two policies' lease buckets (slots and lease each) for two clients, and a token bucket of {@code tokens}. */
    record Setup(int slotsA, int leaseSecondsA, int slotsB, int leaseSecondsB, int tokens) {
    }

    /**
     * One step: acquire (which buckets), release (the i-th lease taken so far, possibly again),
     * advance, or a reload that sets policy a's slots to 1 + i % 4 (leases held stay; issue 21: after
     * the slots were lowered, a refusal's wait was the oldest lease's, too short).
     */
    record Action(int kind, int client, boolean a, boolean b, boolean rate, int index, long advanceMicros) {
        static final int ACQUIRE = 0;
        static final int RELEASE = 1;
        static final int ADVANCE = 2;
        static final int SLOTS = 3;
    }

    record Scenario(Setup setup, List<Action> actions) {
    }

    static Gen<Scenario> scenarios(int maxActions) {
        Gen<Setup> setups = ints(1, 4).zip(ints(1, 3), ints(1, 4), ints(1, 3), ints(1, 30), Setup::new);
        Gen<Integer> kinds = frequency(weight(6, just(Action.ACQUIRE)), weight(2, just(Action.RELEASE)),
                weight(2, just(Action.ADVANCE)), weight(1, just(Action.SLOTS)));
        Gen<Tail> tails = frequency(weight(1, just(true)), weight(4, just(false)))
                .zip(ints(0, 40), longs(0, 3_000_000), Tail::new);
        Gen<Action> actions = kinds.zip(ints(0, 1), of(true, false), of(true, false), tails,
                (kind, client, a, b, t) -> new Action(kind, client, a, b, t.rate(), t.index(), t.advanceMicros()));
        return setups.zip(lists(actions, maxActions / 3, maxActions), Scenario::new);
    }

    /** The last three fields of an {@link Action}, drawn together (a zip takes at most five generators). */
    private record Tail(boolean rate, int index, long advanceMicros) {
    }

    private final Map<String, Map<String, Long>> live = new HashMap<>();
    int admitted;
    int refusedByLeases;
    int released;
    int expired;

    /**
     * Plays a scenario against a store and checks every answer against the model.
     *
     * @param acquire the store's acquire
     * @param release the store's release
     */
    void play(Scenario s, ManualClock clock, Function<List<BucketRequest>, List<BucketReply>> acquire,
              java.util.function.Consumer<List<BucketRequest.Lease>> release) {
        Setup set = s.setup();
        Limit limitA = new Concurrency(set.slotsA(), Duration.ofSeconds(set.leaseSecondsA())).limit(); // a reload may change it
        Limit limitB = new Concurrency(set.slotsB(), Duration.ofSeconds(set.leaseSecondsB())).limit();
        Limit rate = Limit.parse(set.tokens() + "/day").get(0);
        List<BucketRequest.Lease> taken = new ArrayList<>();
        int sequence = 0;
        for (Action act : s.actions()) {
            long now = clock.nowMicros();
            if (act.kind() == Action.ADVANCE) {
                clock.advanceMicros(act.advanceMicros());
                continue;
            }
            if (act.kind() == Action.SLOTS) {
                limitA = new Concurrency(1 + act.index() % 4, Duration.ofSeconds(set.leaseSecondsA())).limit();
                continue;
            }
            if (act.kind() == Action.RELEASE) {
                if (taken.isEmpty()) {
                    continue;
                }
                BucketRequest.Lease lease = taken.get(act.index() % taken.size());
                Long expiry = live.computeIfAbsent(lease.key(), k -> new HashMap<>()).remove(lease.id());
                if (expiry != null && expiry <= now) {
                    expired++;
                } else if (expiry != null) {
                    released++;
                }
                release.accept(List.of(lease));
                continue;
            }
            List<BucketRequest> request = new ArrayList<>();
            String client = "{c" + act.client() + "}";
            if (act.a()) {
                request.add(BucketRequest.lease(client + ":a:c", limitA, true, "L" + (++sequence)));
            }
            if (act.b()) {
                request.add(BucketRequest.lease(client + ":b:c", limitB, true, "L" + (++sequence)));
            }
            if (act.rate() || request.isEmpty()) {
                request.add(BucketRequest.take(client + ":r", List.of(rate), 1, true));
            }
            List<BucketReply> replies = acquire.apply(request);
            boolean all = true;
            for (BucketRequest r : request) {
                if (r instanceof BucketRequest.Lease lease) {
                    all &= liveCount(r.key(), now) + 1 <= lease.limit().capacity();
                } else {
                    all &= tokensTaken(r.key()) + 1 <= rate.capacity();
                }
            }
            for (int i = 0; i < request.size(); i++) {
                BucketRequest r = request.get(i);
                if (!(r instanceof BucketRequest.Lease lease)) {
                    boolean ok = tokensTaken(r.key()) + 1 <= rate.capacity();
                    if (all) {
                        tokens.merge(r.key(), 1L, Long::sum);
                    }
                    assertEquals(ok, replies.get(i).admits(), "the token bucket's verdict at " + act);
                    continue;
                }
                Limit l = lease.limit();
                boolean ok = liveCount(r.key(), now) + 1 <= l.capacity();
                Map<String, Long> leases = live.computeIfAbsent(r.key(), k -> new HashMap<>());
                if (all) {
                    leases.put(lease.id(), now + l.windowMicros());
                    taken.add(lease);
                }
                long[] expiries = leases.values().stream().mapToLong(x -> x).sorted().toArray();
                long oldest = (expiries.length == 0 ? now : expiries[0]) - now;
                long newest = (expiries.length == 0 ? now : expiries[expiries.length - 1]) - now;
                // refused: until enough leases expired that one more fits, the (held - slots + 1)-th oldest
                long wait = ok ? 0 : expiries[(int) (expiries.length - l.capacity())] - now;
                LimitState expected = new LimitState(l, Math.max(0, l.capacity() - leases.size()), oldest, newest, wait);
                assertEquals(expected, replies.get(i).limits().get(0), "lease bucket " + r.key() + " at " + act);
                if (!ok) {
                    refusedByLeases++;
                }
            }
            if (all) {
                admitted++;
            }
        }
    }

    private final Map<String, Long> tokens = new HashMap<>();

    private long tokensTaken(String key) {
        return tokens.getOrDefault(key, 0L);
    }

    /** Drops the expired leases of a bucket (the store does on every call) and counts the rest. */
    private int liveCount(String key, long now) {
        Map<String, Long> leases = live.computeIfAbsent(key, k -> new HashMap<>());
        int before = leases.size();
        leases.values().removeIf(e -> e <= now);
        expired += before - leases.size();
        return leases.size();
    }
}
