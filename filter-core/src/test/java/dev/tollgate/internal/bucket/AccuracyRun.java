package dev.tollgate.internal.bucket;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.AccuracyScenario.Action;
import dev.tollgate.internal.bucket.AccuracyScenario.LimitSpec;
import dev.tollgate.internal.bucket.BucketModel.Outcome;
import dev.tollgate.internal.bucket.BucketModel.Q;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.testing.ManualClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Plays an {@link AccuracyScenario} against a store and the {@link BucketModel} side by side and
 * checks, at every step:
 * <ol>
 *   <li>agreement: the store's verdict and its four numbers per limit are the model's, exactly;</li>
 *   <li>truthful Retry-After: a refused request sent again after exactly its retry time, with
 *       nothing in between, passes;</li>
 *   <li>truthful {@code t}: a limit that reports one more token in {@code next} µs admits one
 *       more than its remaining at {@code next} and not at {@code next - 1};</li>
 *   <li>the bound on admitted cost (see {@link Bounds}).</li>
 * </ol>
 *
 * <p>Not thread-safe; one run per try.
 */
public final class AccuracyRun {

    /** The store under test. */
    public interface Target {
        List<BucketReply> acquire(List<BucketRequest> requests);

        /** The store loses all its state. */
        void restart();
    }

    static final String PREFIX = "acc:";

    private final Target store;
    private final ManualClock clock;
    private final BucketModel model = new BucketModel();
    private final Bounds bounds = new Bounds();
    private final Algorithm[] algorithm = new Algorithm[AccuracyScenario.POLICIES];
    private final boolean[] enforcing = new boolean[AccuracyScenario.POLICIES];
    private final int[] cost = new int[AccuracyScenario.POLICIES];
    private final List<List<List<LimitSpec>>> plans = new ArrayList<>();
    private final int[] clientPlan = new int[AccuracyScenario.CLIENTS];
    private final boolean compactKeys;
    private final AccuracyScenario.Setup setup;
    private final Deque<String> trace = new ArrayDeque<>();
    private long order;

    /** What the run saw, for the property's statistics. */
    public int refusals;
    public int retriesChecked;
    public int nextsChecked;
    public int forgivenCalls;
    /** Calls that charged a state of another configuration's limit (a foreign state) what they took. */
    public int foreignCharged;

    public AccuracyRun(Target store, ManualClock clock, AccuracyScenario.Setup setup) {
        this.store = store;
        this.clock = clock;
        for (int p = 0; p < AccuracyScenario.POLICIES; p++) {
            AccuracyScenario.PolicySetup s = setup.policies().get(p);
            algorithm[p] = s.algorithm();
            enforcing[p] = s.enforcing();
            cost[p] = s.cost();
            plans.add(new ArrayList<>(s.plans()));
        }
        for (int c = 0; c < AccuracyScenario.CLIENTS; c++) {
            clientPlan[c] = setup.clientPlans().get(c);
        }
        this.compactKeys = setup.compactKeys();
        this.setup = setup;
    }

    public void play(List<Action> actions) {
        for (int i = 0; i < actions.size(); i++) {
            note("#" + i + " " + actions.get(i));
            actions.get(i).run(this);
        }
    }

    // ---- configuration ------------------------------------------------------------------------

    static String key(int policy, int client, Algorithm algorithm, boolean compact) {
        String name = "p" + policy;
        String who = "c" + client;
        return compact ? BucketKeys.compactKey(PREFIX, name, who, false, algorithm) : BucketKeys.key(PREFIX, name, who, algorithm);
    }

    private List<Limit> limitsOf(int policy, int client) {
        return limitsOf(policy, client, clientPlan[client]);
    }

    private List<Limit> limitsOf(int policy, int client, int plan) {
        List<Limit> out = new ArrayList<>();
        for (LimitSpec s : plans.get(policy).get(plan)) {
            out.add(s.limit(algorithm[policy]));
        }
        return out;
    }

    /** The cost as the configuration allows it: never above a burst of the policy (checked at start-up). */
    private long costOf(int policy) {
        long most = cost[policy];
        for (List<LimitSpec> plan : plans.get(policy)) {
            for (LimitSpec s : plan) {
                most = Math.min(most, s.limit(algorithm[policy]).capacity());
            }
        }
        return most;
    }

    private BucketRequest.Take request(int policy, int client, long cost) {
        return request(policy, client, cost, clientPlan[client]);
    }

    private BucketRequest.Take request(int policy, int client, long cost, int plan) {
        return BucketRequest.take(key(policy, client, algorithm[policy], compactKeys), limitsOf(policy, client, plan), cost,
                enforcing[policy], algorithm[policy]);
    }

    private List<BucketRequest> requests(int client, int mask) {
        return requests(client, mask, clientPlan[client]);
    }

    private List<BucketRequest> requests(int client, int mask, int plan) {
        List<BucketRequest> out = new ArrayList<>();
        for (int p = 0; p < AccuracyScenario.POLICIES; p++) {
            if ((mask & (1 << p)) != 0) {
                out.add(request(p, client, costOf(p), plan));
            }
        }
        return out;
    }

    void reload(int policy, int plan, List<LimitSpec> limits) {
        plans.get(policy).set(plan, limits);
    }

    void rollBack(int policy, int plan) {
        plans.get(policy).set(plan, setup.policies().get(policy).plans().get(plan));
    }

    void changePlan(int client, int plan) {
        clientPlan[client] = plan;
    }

    void switchAlgorithm(int policy) {
        algorithm[policy] = algorithm[policy] == Algorithm.TOKEN_BUCKET ? Algorithm.SLIDING_LOG : Algorithm.TOKEN_BUCKET;
    }

    void setCost(int policy, int cost) {
        this.cost[policy] = cost;
    }

    void setMode(int policy, boolean enforcing) {
        this.enforcing[policy] = enforcing;
    }

    void advance(long micros) {
        clock.advanceMicros(micros);
    }

    void restart() {
        store.restart();
        model.restart();
        bounds.clear();
    }

    // ---- requests ------------------------------------------------------------------------------

    /** One atomic call to the store and the model; fails unless they answer the same. */
    Outcome call(List<BucketRequest> requests) {
        long now = clock.nowMicros();
        long[] actual = Replies.flat(store.acquire(requests));
        Outcome expected = model.acquire(requests, now);
        note("  at " + now + " " + describe(requests) + " -> " + Arrays.toString(actual));
        if (!Arrays.equals(expected.reply(), actual)) {
            throw new AssertionError("the store disagrees with the model at t=" + now + " for " + describe(requests)
                    + "\n  store: " + Arrays.toString(actual) + "\n  model: " + Arrays.toString(expected.reply()) + trace());
        }
        long o = order++;
        for (int i = 0; i < requests.size(); i++) {
            String error = bounds.record((BucketRequest.Take) requests.get(i), now, o, expected, i);
            if (error != null) {
                throw new AssertionError(error + trace());
            }
            boolean forgave = false;
            for (Q f : expected.forgiven()[i]) {
                forgave |= f.signum() > 0;
            }
            boolean charged = false;
            for (BucketModel.Link l : expected.links()[i] == null ? new BucketModel.Link[0] : expected.links()[i]) {
                forgave |= l.forgiven().signum() > 0;
                charged |= l.capAfterTake() && expected.taken()[i];
            }
            if (charged) {
                foreignCharged++;
            }
            if (forgave) {
                forgivenCalls++;
            }
        }
        if (refused(requests, actual)) {
            refusals++;
        }
        return expected;
    }

    void send(int client, int mask) {
        call(requests(client, mask));
    }

    /**
     * A request of a client under the limits of {@code plan} (whichever plan the client is on):
     * a node of another configuration, as during a rolling change, on the same keys.
     */
    void sendVia(int client, int mask, int plan) {
        call(requests(client, mask, plan));
    }

    void sendAndRetry(int client, int mask) {
        List<BucketRequest> rs = requests(client, mask);
        long[] first = call(rs).reply();
        if (!refused(rs, first)) {
            return;
        }
        long retry = retryAfter(rs, first);
        advance(retry);
        long[] again = call(rs).reply();
        retriesChecked++;
        if (refused(rs, again)) {
            throw new AssertionError("Retry-After lied: refused with a retry in " + retry + " µs, and refused again at"
                    + " exactly that time with nothing taken meanwhile: " + Arrays.toString(again) + trace());
        }
    }

    void probeNext(int client, int policy) {
        BucketRequest r = request(policy, client, costOf(policy));
        long[] reply = call(List.of(r)).reply();
        int j = 0;
        while (j < r.limits().size() && reply[4 * j + 1] == 0) {
            j++;
        }
        if (j == r.limits().size()) {
            return;
        }
        long more = reply[4 * j] + 1;
        for (Limit l : r.limits()) {
            if (more > l.capacity()) {
                return; // a request that large could never pass: the configuration forbids it
            }
        }
        long next = reply[4 * j + 1];
        BucketRequest probe = request(policy, client, more);
        if (next > 1) {
            advance(next - 1);
            if (call(List.of(probe)).reply()[4 * j + 3] == 0) {
                throw new AssertionError("t said " + more + " tokens in " + next + " µs, but limit " + j + " had them"
                        + " 1 µs earlier" + trace());
            }
            advance(1);
        } else {
            advance(next);
        }
        long[] at = call(List.of(probe)).reply();
        nextsChecked++;
        if (at[4 * j + 3] != 0) {
            throw new AssertionError("t lied: it said " + more + " tokens in " + next + " µs, and limit " + j
                    + " refused them then: " + Arrays.toString(at) + trace());
        }
    }

    public static boolean refused(List<BucketRequest> requests, long[] reply) {
        return retryAfter(requests, reply) > 0;
    }

    /** The longest retry among the enforcing limits that refuse: the request's Retry-After. */
    public static long retryAfter(List<BucketRequest> requests, long[] reply) {
        long retry = 0;
        int at = 0;
        for (BucketRequest r : requests) {
            for (int j = 0; j < r.limits().size(); j++, at += 4) {
                if (r.enforcing()) {
                    retry = Math.max(retry, reply[at + 3]);
                }
            }
        }
        return retry;
    }

    private static String describe(List<BucketRequest> requests) {
        StringBuilder sb = new StringBuilder();
        for (BucketRequest request : requests) {
            BucketRequest.Take r = (BucketRequest.Take) request; // a run asks rate buckets only
            sb.append(sb.length() > 0 ? " + " : "").append(r.key().substring(PREFIX.length()))
                    .append(r.algorithm() == Algorithm.SLIDING_LOG ? " log " : " bucket ").append(r.limits())
                    .append(" cost ").append(r.cost()).append(r.enforcing() ? "" : " shadow");
        }
        return sb.toString();
    }

    private void note(String line) {
        trace.addLast(line);
        if (trace.size() > 40) {
            trace.removeFirst();
        }
    }

    private String trace() {
        return "\n  last steps:\n    " + String.join("\n    ", trace);
    }

    /**
     * The bounds on admitted cost, checked at every admission against the history of the key.
     *
     * <p>Token bucket, for each limit: its history is the chain of states it read, back to one
     * that started full (none stored: a new key, or a restart of the store). Each call that wrote
     * the bucket is a link; each state it wrote continues one state of the previous link: a
     * limit of the call its own (found by tag), or the one with the latest arrival time (see
     * {@link BucketModel}), and a foreign state (a node of other limits wrote it) itself, charged
     * what the call took. So across a reload, a reorder or a node of other limits a limit's
     * history follows the state it read, not its position, and holds the admissions of every
     * configuration that charged it. For each earlier admission a at time s on that chain up to
     * this one at t: the admitted cost, each token weighed by the time per token T of the limit
     * whose state took it, is at most {@code (t - s) + C·T} (the time to fill at t) plus the time
     * forgiven by capping after a (a reload, plan change or state of another limit whose debt
     * exceeded the time to fill; a foreign state charged beyond its own time to fill, a's own
     * charge included). While the limit stays the same along the chain this is the classic
     * {@code cost <= C + r·(t - s)} (plus what caps forgave, in tokens), checked on its own as
     * well.
     *
     * <p>Sliding log, while a key's limits stay the same: at most N in any window W.
     */
    static final class Bounds {

        /**
         * One call on one key: for a token bucket also the call that last wrote it before
         * ({@code read}), and when this call wrote it, the states it wrote ({@code links}: which
         * state of {@code read} each continues).
         */
        record Event(long order, long time, boolean admitted, long cost, List<Limit> limits, BucketModel.Link[] links,
                     Event read) {
        }

        /** Sliding logs: the calls since the key last started empty or changed its number of limits. */
        private final Map<String, List<Event>> history = new HashMap<>();
        /** Token buckets: the call that last wrote each. */
        private final Map<String, Event> written = new HashMap<>();

        void clear() {
            history.clear();
            written.clear();
        }

        String record(BucketRequest.Take r, long now, long order, Outcome o, int i) {
            String id = r.key() + "|" + r.algorithm();
            if (r.algorithm() == Algorithm.SLIDING_LOG) {
                List<Event> events = history.computeIfAbsent(id, k -> new ArrayList<>());
                if (!events.isEmpty() && events.get(events.size() - 1).limits().size() != r.limits().size()) {
                    events.clear(); // a new history
                }
                Event e = new Event(order, now, o.taken()[i], r.cost(), r.limits(), null, null);
                events.add(e);
                return e.admitted() ? checkLog(events, e) : null;
            }
            Event e = new Event(order, now, o.taken()[i], r.cost(), r.limits(), o.links()[i], written.get(id));
            if (o.wrote()[i]) {
                written.put(id, e);
            }
            return e.admitted() ? checkBucket(e) : null;
        }

        private static String checkBucket(Event now) {
            for (int j = 0; j < now.limits().size(); j++) {
                Limit limit = now.limits().get(j);
                BucketModel.Tag mine = BucketModel.Tag.of(limit);
                Q perToken = mine.perToken();
                Q fill = mine.full();
                Q weighed = Q.ZERO;
                Q forgiven = Q.ZERO;
                long tokens = 0;
                boolean sameLimit = true;
                Event a = now;
                int at = j;
                while (a != null && at >= 0) {
                    BucketModel.Link link = a.links()[at];
                    sameLimit &= link.tag().equals(mine);
                    // a foreign state's cap came after its charge: it counts for a's own admission too
                    if (link.capAfterTake()) {
                        forgiven = forgiven.plus(link.forgiven());
                    }
                    if (a.admitted()) {
                        weighed = weighed.plus(link.tag().perToken().times(a.cost()));
                        tokens += a.cost();
                        Q elapsed = Q.of(now.time() - a.time());
                        Q bound = elapsed.plus(fill).plus(forgiven);
                        if (weighed.compareTo(bound) > 0) {
                            return "limit " + limit + " admitted " + weighed + " µs of tokens since t=" + a.time()
                                    + ", more than the elapsed time plus the time to fill plus the time forgiven, " + bound;
                        }
                        long classic = limit.capacity() + elapsed.plus(forgiven).dividedBy(perToken).floor();
                        if (sameLimit && tokens > classic) {
                            return "limit " + limit + " admitted " + tokens + " tokens since t=" + a.time()
                                    + ", more than capacity + rate x (elapsed + forgiven) = " + classic;
                        }
                    }
                    // what a limit's cap forgave happened before its own take: it counts for earlier admissions only
                    if (!link.capAfterTake()) {
                        forgiven = forgiven.plus(link.forgiven());
                    }
                    at = link.source();
                    a = a.read();
                }
            }
            return null;
        }

        private static String checkLog(List<Event> events, Event now) {
            for (Limit limit : now.limits()) {
                long inWindow = 0;
                for (int k = events.size() - 1; k >= 0; k--) {
                    Event a = events.get(k);
                    if (!a.limits().equals(now.limits())) {
                        break;
                    }
                    if (a.admitted() && a.time() > now.time() - limit.windowMicros()) {
                        inWindow += a.cost();
                    }
                }
                if (inWindow > limit.capacity()) {
                    return "log limit " + limit + " admitted " + inWindow + " in the window ending at t=" + now.time();
                }
            }
            return null;
        }
    }
}
