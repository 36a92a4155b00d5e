package dev.tollgate.faults;

import dev.tollgate.Decision;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a run's history against the guarantees of docs/guarantees.md, with the allowances of {@link Allowance}
 * for the faults and changes that overlap each interval, and says what broke, each with the
 * shortest slice of history that shows it.
 *
 * <ul>
 * <li><b>Rate</b>: for each API client and each interval from an admitted request's invocation to
 *     a later one's completion, the requests admitted within it are at most what the most generous
 *     configuration in force admits over its length, plus the allowances.</li>
 * <li><b>Quota</b>: the same for a calendar quota client, in quotas per hour window the interval
 *     touches (on nodes whose clocks are hours apart: {@link Run#CLOCK_OFFSETS_MICROS}).</li>
 * <li><b>Concurrency</b>: at no moment does a slot client hold more slots than the largest
 *     {@code concurrency} in force plus the allowances (a slot is surely held from the decision's
 *     return to the release's call; a dead node's until its death).</li>
 * <li><b>Retry-After</b>: an obeying client's request at exactly the retry time a refusal gave is
 *     admitted, unless a fault or change overlapped.</li>
 * <li><b>No 5xx but under {@code closed}</b>; <b>no client key in a log line</b>.</li>
 * </ul>
 * Liveness after the faults heal is checked by the run itself ({@link Run}).
 */
final class Checker {

    private final History h;
    private final int nodes;
    private final String failureMode;
    private final List<Op> ops;
    private final List<Event> events;
    private final Map<Integer, TreeMap<Long, History.Reconfig>> configs = new TreeMap<>();
    final List<String> violations = new ArrayList<>();

    Checker(History h, int nodes, String failureMode) {
        this.h = h;
        this.nodes = nodes;
        this.failureMode = failureMode;
        this.ops = h.ops();
        this.events = new ArrayList<>(h.events());
        this.events.addAll(observedOutages(ops, failureMode));
        for (int n = 0; n < nodes; n++) {
            TreeMap<Long, History.Reconfig> m = new TreeMap<>();
            m.put(Long.MIN_VALUE, new History.Reconfig(Long.MIN_VALUE, n, 0, 0, 0));
            configs.put(n, m);
        }
        for (History.Reconfig r : h.reconfigs()) {
            configs.get(r.node()).put(r.at(), r);
        }
    }

    /**
     * Redis unreachable for a node without the nemesis' doing (a first connection slower than the
     * budget at start, a pause of the JVM): each run of decisions that a node's failure mode made,
     * with its aftermath. The allowance of docs/guarantees.md for Redis unreachable holds whatever made it so;
     * only the injected faults are known beforehand, so the others are read off the history.
     */
    static List<Event> observedOutages(List<Op> ops, String failureMode) {
        Allowance allowance = failureMode.equals("local") ? Allowance.REDIS_UNREACHABLE_LOCAL : Allowance.REDIS_UNREACHABLE;
        List<Event> out = new ArrayList<>();
        Map<Integer, List<Op>> byNode = new TreeMap<>();
        for (Op o : ops) {
            boolean failureModeDecided = o.error == null && (o.source == Decision.Source.LOCAL || o.source == Decision.Source.NONE);
            if (failureModeDecided) {
                byNode.computeIfAbsent(o.node, n -> new ArrayList<>()).add(o);
            }
        }
        for (Map.Entry<Integer, List<Op>> e : byNode.entrySet()) {
            List<Op> decided = e.getValue().stream().sorted(Comparator.comparingLong(o -> o.invoke)).toList();
            long start = decided.get(0).invoke;
            long end = decided.get(0).complete;
            for (Op o : decided) {
                if (o.invoke > end + Nemesis.AFTERMATH_MICROS) {
                    out.add(new Event("the failure mode decided (seen in the history)", e.getKey(), start,
                            end + Nemesis.AFTERMATH_MICROS, allowance));
                    start = o.invoke;
                }
                end = Math.max(end, o.complete);
            }
            out.add(new Event("the failure mode decided (seen in the history)", e.getKey(), start, end + Nemesis.AFTERMATH_MICROS,
                    allowance));
        }
        return out;
    }

    List<String> check(List<Workload.Client> clients) {
        for (Workload.Client c : clients) {
            List<Op> mine = ops.stream().filter(o -> o.client == c.id()).sorted(Comparator.comparingLong(o -> o.invoke)).toList();
            if (c.kind() == Workload.Kind.SLOTS) {
                concurrency(c, mine);
            } else if (c.kind() == Workload.Kind.QUOTA) {
                quota(c, mine);
            } else {
                rate(c, mine);
                retryAfter(c, mine);
            }
        }
        for (Op o : ops) {
            if (o.error == null && o.verdict == Decision.Verdict.UNAVAILABLE && !failureMode.equals("closed")) {
                violations.add("a 503 under failure mode " + failureMode + ": " + o);
            }
        }
        for (Workload.Client c : clients) {
            String secret = c.apiKey().substring("sk_live_".length());
            h.logLines().stream().filter(line -> line.contains(secret)).findFirst().ifPresent(line -> violations.add(
                    "client " + c.id() + "'s API key in a log line (and " + h.logLines().stream().filter(l -> l.contains(secret))
                            .count() + " lines in all): " + line.strip()));
        }
        return violations;
    }

    /** The configurations in force on any node at any moment of [from, to]. */
    private List<History.Reconfig> inForce(long from, long to) {
        List<History.Reconfig> all = new ArrayList<>();
        for (TreeMap<Long, History.Reconfig> m : configs.values()) {
            all.add(m.floorEntry(from).getValue());
            all.addAll(m.subMap(from, false, to, true).values());
        }
        return all;
    }

    private void rate(Workload.Client c, List<Op> mine) {
        String worst = shortestBroken(mine, (count, from, to) -> {
            double bound = rateBound(from, to);
            return count <= bound + 1e-9 ? null
                    : String.format("client %d (%s) was admitted %d times in %.3f s, from %.3f s to %.3f s; the bound"
                            + " there is %.2f", c.id(), c.kind(), count, (to - from) / 1e6, from / 1e6, to / 1e6, bound)
                            + slice(c.id(), from, to);
        });
        if (worst != null) {
            violations.add(worst);
        }
    }

    /** Whether {@code count} admitted over [from, to] breaks a bound: what to report, or {@code null}. */
    private interface IntervalJudge {
        String broken(int count, long from, long to);
    }

    /**
     * Over every interval from an admitted request's invocation to a later one's completion, the
     * requests admitted wholly within it, judged; the report of the broken interval spanning the
     * fewest requests (the shortest slice of history to read), or {@code null} when none is broken.
     */
    private static String shortestBroken(List<Op> mine, IntervalJudge judge) {
        List<Op> admitted = mine.stream().filter(Op::counted).toList();
        String worst = null;
        int worstSpan = Integer.MAX_VALUE;
        for (int i = 0; i < admitted.size(); i++) {
            Op a = admitted.get(i);
            for (int j = i; j < admitted.size() && j - i < worstSpan; j++) {
                Op b = admitted.get(j);
                if (b.complete < a.invoke) {
                    continue;
                }
                long from = a.invoke;
                long to = Math.max(b.complete, a.complete);
                int count = 0;
                for (int k = i; k <= j; k++) {
                    Op o = admitted.get(k);
                    if (o.invoke >= from && o.complete <= to) {
                        count++;
                    }
                }
                String broken = judge.broken(count, from, to);
                if (broken != null) {
                    worstSpan = j - i;
                    worst = broken;
                }
            }
        }
        return worst;
    }

    /** The most the configurations in force admit over [from, to], plus the allowances of the events overlapping it. */
    double rateBound(long from, long to) {
        double bound = 0;
        long maxCapacity = 0;
        double maxRate = 0;
        for (History.Reconfig r : inForce(from, to)) {
            List<Rate> limits = Node.API_VARIANTS.get(r.api());
            bound = Math.max(bound, Rate.bound(limits, to - from));
            for (Rate l : limits) {
                maxCapacity = Math.max(maxCapacity, l.capacity());
                maxRate = Math.max(maxRate, l.perSecondRate());
            }
        }
        for (Event e : events) {
            if (e.overlaps(from, to)) {
                long overlap = Math.min(to, e.end()) - Math.max(from, e.start());
                bound += e.allowance().bursts(nodes) * maxCapacity + e.allowance().extraRates(nodes) * maxRate * overlap / 1e6;
            }
        }
        return bound;
    }

    /**
     * A calendar quota: for each client and each interval from an admitted request's invocation to
     * a later one's completion, the requests admitted within it are at most the largest hourly
     * quota in force, once for the hour the interval starts in and once more for each start of an
     * hour (in a zone in force) within it, plus the allowances of the faults and changes that
     * overlap it, in quotas. Over every interval, not the run alone: a fault's allowance in one
     * second must not hide a quota handed out twice in another (a node whose clock is hours off).
     */
    private void quota(Workload.Client c, List<Op> mine) {
        String worst = shortestBroken(mine, (count, from, to) -> {
            long[] bound = quotaBound(from, to);
            return count <= bound[0] ? null
                    : String.format("client %d (QUOTA) was admitted %d times from %.3f s to %.3f s; the bound there is %d"
                            + " (%d per hour in force, %d windows)", c.id(), count, from / 1e6, to / 1e6, bound[0], bound[1],
                            bound[2]) + slice(c.id(), from, to);
        });
        if (worst != null) {
            violations.add(worst);
        }
    }

    /** The most a quota client may be admitted over [from, to], the largest hourly quota in force, and the hour windows it touches. */
    long[] quotaBound(long from, long to) {
        int most = 0;
        java.util.Set<String> zones = new java.util.HashSet<>();
        for (History.Reconfig r : inForce(from, to)) {
            Node.Quota q = Node.QUOTA_VARIANTS.get(r.quota());
            most = Math.max(most, q.count());
            zones.add(q.zone());
        }
        long windows = 1;
        java.time.Instant start = h.instant(from);
        java.time.Instant end = h.instant(to);
        for (String zone : zones) {
            java.time.ZonedDateTime next = start.atZone(java.time.ZoneId.of(zone)).truncatedTo(java.time.temporal.ChronoUnit.HOURS)
                    .plusHours(1);
            while (!next.toInstant().isAfter(end)) {
                windows++;
                next = next.plusHours(1);
            }
        }
        long bound = most * windows;
        for (Event e : events) {
            if (e.overlaps(from, to)) {
                bound += (long) e.allowance().bursts(nodes) * most;
            }
        }
        return new long[] {bound, most, windows};
    }

    private void concurrency(Workload.Client c, List<Op> mine) {
        // a slot is surely held from the decision's return to the release's call; a dead node's until it died
        List<long[]> holds = new ArrayList<>();
        for (Op o : mine) {
            if (!o.counted()) {
                continue;
            }
            long end = o.releaseInvoke >= 0 ? o.releaseInvoke : deathOf(o.node, o.complete);
            if (end > o.complete) {
                holds.add(new long[] {o.complete, end});
            }
        }
        List<long[]> edges = new ArrayList<>();
        for (long[] hold : holds) {
            edges.add(new long[] {hold[0], 1});
            edges.add(new long[] {hold[1], -1});
        }
        edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int held = 0;
        for (long[] e : edges) {
            held += (int) e[1];
            if (e[1] > 0) {
                long at = e[0];
                int bound = slotBound(at);
                if (held > bound) {
                    violations.add(String.format("client %d held %d slots at %.3f s; the bound there is %d", c.id(), held,
                            at / 1e6, bound) + slice(c.id(), at - 1_000_000, at));
                    return;
                }
            }
        }
    }

    private long deathOf(int node, long after) {
        return events.stream().filter(e -> e.allowance() == Allowance.NODE_KILLED && e.node() == node && e.start() >= after)
                .mapToLong(Event::start).min().orElse(after);
    }

    int slotBound(long at) {
        int n = 0;
        for (History.Reconfig r : inForce(at - Node.LEASE_MICROS, at)) {
            n = Math.max(n, Node.SLOT_VARIANTS.get(r.slots()));
        }
        int bound = n;
        for (Event e : events) {
            if (e.overlaps(at - Node.LEASE_MICROS, at)) {
                bound += e.allowance().slots(nodes) * n;
            }
        }
        return bound;
    }

    private void retryAfter(Workload.Client c, List<Op> mine) {
        for (int i = 0; i + 1 < mine.size(); i++) {
            Op refused = mine.get(i);
            Op next = mine.get(i + 1);
            if (!refused.obeying || next.error != null || refused.source == Decision.Source.NONE
                    || refused.source == Decision.Source.LOCAL || next.source == Decision.Source.LOCAL) {
                continue;
            }
            if (next.admitted()) {
                continue;
            }
            long from = refused.invoke;
            long to = next.complete;
            boolean disturbed = events.stream().anyMatch(e -> e.overlaps(from - Nemesis.AFTERMATH_MICROS, to))
                    || h.reconfigs().stream().anyMatch(r -> r.at() >= from - 1_000_000 && r.at() <= to);
            if (!disturbed) {
                violations.add(String.format("client %d called again exactly at the retry time of a refusal (%d µs after it"
                        + " returned) and was refused", c.id(), refused.retryAfterMicros) + slice(c.id(), from, to));
                return;
            }
        }
    }

    /** The client's requests in [from, to], and the events and changes that overlap it. */
    private String slice(int client, long from, long to) {
        StringBuilder s = new StringBuilder("\n  its requests then:");
        List<Op> then = ops.stream().filter(o -> o.client == client && o.complete >= from && o.invoke <= to)
                .sorted(Comparator.comparingLong(o -> o.invoke)).toList();
        if (then.size() > 80) { // a long slice: its admissions tell the story
            then = then.stream().filter(Op::counted).toList();
            s.append(" (the admitted ones)");
        }
        then.forEach(o -> s.append("\n    ").append(o));
        s.append("\n  faults and changes then:");
        events.stream().filter(e -> e.overlaps(from, to)).forEach(e -> s.append("\n    ").append(e));
        h.reconfigs().stream().filter(r -> r.at() >= from - 3_000_000 && r.at() <= to).forEach(r -> s.append("\n    ").append(r));
        return s.toString();
    }
}
