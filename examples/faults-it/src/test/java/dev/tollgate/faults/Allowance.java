package dev.tollgate.faults;

/**
 * What each fault and each kind of change may add to the single-configuration bounds, as the
 * table of docs/guarantees.md states it: the checker holds every history to these numbers, and
 * {@code AllowanceTableTest} fails when that table and this one drift apart.
 *
 * <p>A rate bound over an interval is the most generous configuration in force during it
 * ({@code capacity + rate × t} of its tightest limit), plus, for each event that overlaps the
 * interval, {@link #bursts} bursts of the largest capacity in force, and while it lasts
 * {@link #extraRates} times the largest rate more. A concurrency bound is the largest
 * {@code concurrency} in force plus {@link #slots} times it per event in force. Decisions that the
 * failure mode {@code open} let through without a store are not counted: that mode is unlimited
 * by choice.
 */
enum Allowance {

    /** Redis restarted without persistence: every bucket and lease is new. */
    REDIS_RESTARTED_EMPTY("Redis restarted empty (no persistence)", "1 burst", 1, 0, "N more (the leases are gone)", 1, 0),
    /**
     * Redis unreachable for some or all nodes (killed, paused, a proxy's reset, black hole, slow close
     * or dropped replies, latency past the timeout), under failure mode {@code local}: each node
     * continues from the shared bucket as it last saw it (N nodes), and when Redis answers again it
     * does not know what the fallbacks admitted (one more).
     */
    REDIS_UNREACHABLE_LOCAL("Redis unreachable, failure mode `local` (n nodes)", "n + 1 bursts, and n - 1 rates while it lasts",
            -1, -1, "n times N (each fallback has its own slots)", -1, 0),
    /** Redis unreachable, failure mode {@code open} or {@code closed}: the first steps aside (not counted), the second refuses. */
    REDIS_UNREACHABLE("Redis unreachable, failure mode `open` or `closed`", "none (what `open` lets through is not counted)",
            0, 0, "none", 0, 0),
    /**
     * A Redis Cluster master killed and its replica promoted: while the failover lasts its slots are
     * unreachable (as above, by failure mode), and a write the replica had not yet received is lost.
     */
    MASTER_FAILOVER("a Cluster master killed, its replica promoted", "1 burst (a write not yet replicated is lost)", 1, 0,
            "N more (a lease not yet replicated is lost)", 1, 0),
    /** A slot migrated from one master to another while requests run: Redis decides throughout. */
    SLOT_MIGRATION("a Cluster slot migrated while requests run", "none", 0, 0, "none", 0, 0),
    /** Replies slower than usual but within the timeout. */
    LATENCY("latency within the timeout", "none", 0, 0, "none", 0, 0),
    /** A node killed without releasing anything: its slots stay taken until their lease ends. */
    NODE_KILLED("a node killed without releasing its slots", "none", 0, 0, "none; its slots come back within the lease", 0,
            1),
    /**
     * A configuration change (limits added, removed, reordered, rates and bursts changed, concurrency
     * lowered) reaching the nodes one by one, reloads at different moments.
     */
    ROLLING_CHANGE("a rolling change of limits or concurrency", "1 burst per changed policy", 1, 0,
            "none beyond the larger N while both are in force", 0, 0);

    final String fault;
    final String rateText;
    /** Bursts added per event; -1: the number of nodes plus one. */
    final int bursts;
    /** Rates added while the event lasts; -1: the number of nodes less one. */
    final int extraRates;
    final String slotsText;
    /** Concurrency added per event, in multiples of N; -1: the number of nodes. */
    final int slots;
    /** Whether slots held by the event may stay taken until their lease ends. */
    final int leaseHeld;

    Allowance(String fault, String rateText, int bursts, int extraRates, String slotsText, int slots, int leaseHeld) {
        this.fault = fault;
        this.rateText = rateText;
        this.bursts = bursts;
        this.extraRates = extraRates;
        this.slotsText = slotsText;
        this.slots = slots;
        this.leaseHeld = leaseHeld;
    }

    int bursts(int nodes) {
        return bursts < 0 ? nodes + 1 : bursts;
    }

    int extraRates(int nodes) {
        return extraRates < 0 ? nodes - 1 : extraRates;
    }

    int slots(int nodes) {
        return slots < 0 ? nodes : slots;
    }

    /** The row of docs/guarantees.md's table for this allowance. */
    String row() {
        return "| " + fault + " | " + rateText + " | " + slotsText + " |";
    }
}
