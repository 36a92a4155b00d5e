package dev.tollgate.internal.metrics;

import dev.tollgate.Decision;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@code tollgate.rate_limiting.requests} meters of one binding, found per decision without building a
 * key: a table per policy, one slot per outcome, store and fallback. The outcomes and stores are
 * the fixed words {@link Metrics} passes; the policies are the configuration's, so the tables are
 * bounded by it, as the meters themselves are.
 *
 * <p>Thread-safe: two threads may make the same meter at once; the registries answer the same
 * meter for the same name and tags, and the slot keeps the first.
 *
 * @param <M> the binding's meter (a counter, or the attributes it counts with)
 */
final class DecisionMeters<M> {

    /** Makes the meter for one combination (registers it, or finds it registered). */
    @FunctionalInterface
    interface Maker<M> {
        M make(String policy, String outcome, String store, boolean fallback);
    }

    static final List<String> OUTCOMES = MeterNames.RESULTS;
    /** The {@code store} words: every {@link Decision.Source}, as {@link Metrics} names them. */
    static final List<String> STORES = Arrays.stream(Decision.Source.values())
            .map(s -> s.name().toLowerCase(Locale.ROOT)).toList();
    private static final int SLOTS = OUTCOMES.size() * STORES.size() * 2;

    private final ConcurrentHashMap<String, AtomicReferenceArray<M>> byPolicy = new ConcurrentHashMap<>();
    private final Maker<M> maker;

    DecisionMeters(Maker<M> maker) {
        this.maker = maker;
    }

    M get(String policy, String outcome, String store, boolean fallback) {
        int o = OUTCOMES.indexOf(outcome);
        int s = STORES.indexOf(store);
        if (o < 0 || s < 0) {
            return maker.make(policy, outcome, store, fallback); // a word added to Metrics but not here: still counted
        }
        int slot = (o * STORES.size() + s) * 2 + (fallback ? 1 : 0);
        AtomicReferenceArray<M> table = byPolicy.computeIfAbsent(policy, p -> new AtomicReferenceArray<>(SLOTS));
        M m = table.get(slot);
        if (m == null) {
            M made = maker.make(policy, outcome, store, fallback);
            m = table.compareAndExchange(slot, null, made);
            if (m == null) {
                m = made;
            }
        }
        return m;
    }
}
