package dev.tollgate.faults;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything a run did, on one clock (µs since the run began): the requests, the nemesis' events,
 * and each node's configuration changes. Thread-safe while the run writes it; read after.
 */
final class History {

    /** A node put a configuration in force: its API and slots variants from {@code at} on. */
    record Reconfig(long at, int node, int api, int slots, int quota) {
        @Override
        public String toString() {
            return String.format("%9.3f s  node %d reloads: api %s, slots concurrency %d, quota %s", at / 1e6, node,
                    Rate.text(Node.API_VARIANTS.get(api)), Node.SLOT_VARIANTS.get(slots), Node.QUOTA_VARIANTS.get(quota));
        }
    }

    private final long startNanos = System.nanoTime();
    private final java.time.Instant startInstant = java.time.Instant.now();
    final List<Op> ops = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
    final List<Reconfig> reconfigs = new ArrayList<>();
    final List<String> logLines = new ArrayList<>();

    /** The wall-clock instant of a time of this history (for calendar windows). */
    java.time.Instant instant(long micros) {
        return startInstant.plusNanos(micros * 1000);
    }

    long now() {
        return (System.nanoTime() - startNanos) / 1000;
    }

    synchronized void add(Op op) {
        ops.add(op);
    }

    synchronized void add(Event e) {
        events.add(e);
    }

    synchronized void add(Reconfig r) {
        reconfigs.add(r);
    }

    synchronized void log(String line) {
        logLines.add(line);
    }

    synchronized List<Op> ops() {
        return List.copyOf(ops);
    }

    synchronized List<Event> events() {
        return List.copyOf(events);
    }

    synchronized List<Reconfig> reconfigs() {
        return List.copyOf(reconfigs);
    }

    synchronized List<String> logLines() {
        return List.copyOf(logLines);
    }
}
