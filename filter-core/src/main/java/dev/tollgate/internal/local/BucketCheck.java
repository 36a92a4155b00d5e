package dev.tollgate.internal.local;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import java.util.List;

/**
 * One bucket of a call to {@link LocalStore#acquireAll}, in two steps under the lock of its key's
 * stripe. {@link #of} checks: it reads what the key holds and works out whether the bucket admits
 * the request and what it would answer, taking nothing (it only drops what is the same as absent:
 * a state full again, leases expired, log entries beyond the largest count, windows ended).
 * {@link #commit} then takes the request's cost when the call passes, writes what must be
 * written even on a refusal, and answers one state per limit, as {@code bucket.lua} does.
 *
 * <p>One kind per kind of request and algorithm: a pause {@link GateCheck}, a concurrency
 * {@link LeaseCheck}, and for a take a {@link TokenCheck} (GCRA, {@link Gcra}), a
 * {@link LogCheck} ({@link SlidingLog}) or a {@link CalendarCheck} ({@link CalendarQuota}).
 */
sealed interface BucketCheck {

    /** Whether this bucket's own limits admit the request. */
    boolean admits();

    /**
     * Takes the request's cost when {@code take} (the call passes and {@link #admits}), writes
     * what this bucket writes either way, and answers where its limits stand.
     */
    BucketReply commit(boolean take, long now);

    /** Checks {@code r} against what {@code stripe} (its key's, locked) holds at {@code now}. */
    static BucketCheck of(BucketRequest r, Stripe stripe, long now) {
        if (r instanceof BucketRequest.Gate gate) {
            return GateCheck.check(gate, stripe, now);
        }
        if (r instanceof BucketRequest.Lease lease) {
            return LeaseCheck.check(lease, stripe, now);
        }
        BucketRequest.Take take = (BucketRequest.Take) r;
        switch (take.algorithm()) {
            case CALENDAR:
                return CalendarCheck.check(take, stripe, now);
            case SLIDING_LOG:
                return LogCheck.check(take, stripe, now);
            default:
                return TokenCheck.check(take, stripe, now);
        }
    }

    /** A pause gate: admits unless a pause lasts beyond now; takes nothing. */
    record GateCheck(BucketRequest.Gate request, long leftMicros) implements BucketCheck {

        static GateCheck check(BucketRequest.Gate r, Stripe stripe, long now) {
            return new GateCheck(r, Math.max(0, stripe.pausedUntil(r.key(), now) - now));
        }

        @Override
        public boolean admits() {
            return leftMicros == 0;
        }

        /** As bucket.lua answers for a gate: the limit shown full when open, else empty until the pause ends. */
        @Override
        public BucketReply commit(boolean take, long now) {
            Limit shown = request.shownAs();
            long left = leftMicros;
            return new BucketReply(List.of(new LimitState(shown, left == 0 ? shown.capacity() : 0, left, left, left)));
        }
    }

    /** A concurrency lease: admits while one more lease fits in the limit's slots. */
    record LeaseCheck(BucketRequest.Lease request, Stripe stripe, Leases held, boolean admits) implements BucketCheck {

        static LeaseCheck check(BucketRequest.Lease r, Stripe stripe, long now) {
            Leases held = stripe.leases(r.key());
            return new LeaseCheck(r, stripe, held, held.live(now) + 1 <= r.limit().capacity());
        }

        /** As bucket.lua answers for a lease: slots free, until the oldest and the newest expire, the wait. */
        @Override
        public BucketReply commit(boolean take, long now) {
            Limit limit = request.limit();
            if (take) {
                held.take(request.id(), now + limit.windowMicros());
            }
            int count = held.live(now);
            long next = held.isEmpty() ? 0 : held.oldest() - now;
            long full = held.isEmpty() ? 0 : held.newest() - now;
            // refused: until one more fits, the (held - slots + 1)-th oldest (more than the oldest
            // after the slots were lowered)
            long wait = admits || held.isEmpty() ? 0 : held.expiryOf((int) (count - limit.capacity())) - now;
            stripe.keep(request.key(), held);
            LimitState state = new LimitState(limit, Math.max(0, limit.capacity() - count), next, full, wait);
            return new BucketReply(List.of(state));
        }
    }

    /**
     * A token bucket (GCRA) of any limits: per limit the debt read ({@link Gcra#read}, capped at
     * the time to fill) and the debt after taking, the foreign states to keep, and whether a
     * debt was capped (then the state is written even when refused: see {@link Gcra}).
     */
    record TokenCheck(BucketRequest.Take request, Stripe stripe, long[] debts, long[] wanted, long[] foreign,
                      boolean capped, boolean admits) implements BucketCheck {

        private static final long[] NONE = new long[0];

        static TokenCheck check(BucketRequest.Take r, Stripe stripe, long now) {
            List<Limit> limits = r.limits();
            int m = limits.size();
            long[] state = stripe.bucket(r.key(), now);
            long[] debts = new long[m];
            long[] foreign = state != null ? Gcra.read(state, now, limits, debts) : NONE;
            long[] wanted = new long[m];
            boolean capped = false;
            boolean ok = true;
            for (int j = 0; j < m; j++) {
                Limit l = limits.get(j);
                long full = l.capacity() * l.refillPeriodMicros();
                if (debts[j] > full) {
                    debts[j] = full;
                    capped = true;
                }
                wanted[j] = debts[j] + r.cost() * l.refillPeriodMicros();
                ok &= wanted[j] <= full;
            }
            return new TokenCheck(r, stripe, debts, wanted, foreign, capped, ok);
        }

        /** Written when taken (each foreign state charged the cost), and when capped even if refused. */
        @Override
        public BucketReply commit(boolean take, long now) {
            List<Limit> limits = request.limits();
            long[] afters = take ? wanted : debts;
            LimitState[] states = new LimitState[afters.length];
            for (int j = 0; j < afters.length; j++) {
                states[j] = Gcra.answer(limits.get(j), afters[j], wanted[j]);
            }
            if (take || capped) {
                stripe.put(request.key(), Gcra.write(now, limits, afters, foreign, take ? request.cost() : 0));
            }
            return BucketCheck.reply(states);
        }
    }

    /** A sliding log: per limit the entries in its window plus the cost, against its count. */
    record LogCheck(BucketRequest.Take request, Stripe stripe, SlidingLog log, long[] wanted, boolean admits)
            implements BucketCheck {

        static LogCheck check(BucketRequest.Take r, Stripe stripe, long now) {
            List<Limit> limits = r.limits();
            SlidingLog log = stripe.log(r.key(), largestCount(limits));
            long[] wanted = new long[limits.size()];
            boolean ok = true;
            for (int j = 0; j < wanted.length; j++) {
                Limit l = limits.get(j);
                wanted[j] = log.countAfter(now - l.windowMicros()) + r.cost();
                ok &= wanted[j] <= l.capacity();
            }
            return new LogCheck(r, stripe, log, wanted, ok);
        }

        /** Entries out of every window go only when one is taken (see {@link SlidingLog#dropUpTo}). */
        @Override
        public BucketReply commit(boolean take, long now) {
            List<Limit> limits = request.limits();
            if (take) {
                log.dropUpTo(now - longestWindow(limits));
                log.add(now, request.cost(), largestCount(limits));
            }
            LimitState[] states = new LimitState[wanted.length];
            for (int j = 0; j < wanted.length; j++) {
                states[j] = log.answer(limits.get(j), now, wanted[j]);
            }
            stripe.keep(request.key(), log);
            return BucketCheck.reply(states);
        }

        private static long longestWindow(List<Limit> limits) {
            long longest = 0;
            for (int j = 0; j < limits.size(); j++) {
                longest = Math.max(longest, limits.get(j).windowMicros());
            }
            return longest;
        }

        private static long largestCount(List<Limit> limits) {
            long most = 0;
            for (int j = 0; j < limits.size(); j++) {
                most = Math.max(most, limits.get(j).capacity());
            }
            return most;
        }
    }

    /**
     * Calendar quotas: per limit its window now ({@code starts}, {@code ends}), what the window
     * holds ({@code used}, {@link CalendarQuota#read}) and until when that holds if nothing is
     * written ({@code holds}), and what it would hold with the cost ({@code wanted}).
     */
    record CalendarCheck(BucketRequest.Take request, Stripe stripe, CalendarQuota quota, boolean[] claimed,
                         long[] starts, long[] ends, long[] used, long[] holds, long[] wanted, boolean admits)
            implements BucketCheck {

        static CalendarCheck check(BucketRequest.Take r, Stripe stripe, long now) {
            List<Limit> limits = r.limits();
            int m = limits.size();
            CalendarQuota quota = stripe.calendar(r.key(), now);
            long[] starts = new long[m];
            long[] ends = new long[m];
            for (int j = 0; j < m; j++) {
                starts[j] = limits.get(j).calendar().startMicros(now);
                ends[j] = limits.get(j).calendar().endMicros(now);
            }
            long[] used = new long[m];
            long[] holds = new long[m];
            boolean[] claimed = CalendarQuota.read(quota, starts, ends, limits, r.cost(), used, holds);
            long[] wanted = new long[m];
            boolean ok = true;
            for (int j = 0; j < m; j++) {
                wanted[j] = used[j] + r.cost();
                ok &= wanted[j] <= limits.get(j).capacity();
            }
            return new CalendarCheck(r, stripe, quota, claimed, starts, ends, used, holds, wanted, ok);
        }

        /** Written, a count holds until its window's end; else until what was read ends. */
        @Override
        public BucketReply commit(boolean take, long now) {
            List<Limit> limits = request.limits();
            long[] counts = take ? wanted : used;
            LimitState[] states = new LimitState[counts.length];
            for (int j = 0; j < counts.length; j++) {
                states[j] = CalendarQuota.answer(limits.get(j), now, take ? ends[j] : holds[j], counts[j], wanted[j]);
            }
            if (take) {
                stripe.put(request.key(),
                        CalendarQuota.written(quota, claimed, starts, counts, ends, request.cost(), now));
            }
            return BucketCheck.reply(states);
        }
    }

    /** A reply of these states; one or two (nearly every bucket) without the copies of a list of any length. */
    private static BucketReply reply(LimitState[] states) {
        switch (states.length) {
            case 1:
                return new BucketReply(List.of(states[0]));
            case 2:
                return new BucketReply(List.of(states[0], states[1]));
            default:
                return new BucketReply(List.of(states));
        }
    }
}
