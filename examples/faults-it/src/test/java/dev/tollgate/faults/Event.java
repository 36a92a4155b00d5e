package dev.tollgate.faults;

/**
 * One thing the nemesis did, from when it began to when it was healed (µs since the run began),
 * on one node ({@code -1}: all, or Redis itself), and what it may add to the bounds.
 */
record Event(String what, int node, long start, long end, Allowance allowance) {

    boolean overlaps(long from, long to) {
        return start <= to && end >= from;
    }

    @Override
    public String toString() {
        return String.format("%9.3f s .. %9.3f s  %s%s [%s]", start / 1e6, end / 1e6, what, node >= 0 ? " on node " + node : "",
                allowance);
    }
}
