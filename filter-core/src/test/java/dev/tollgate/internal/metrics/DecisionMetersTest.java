package dev.tollgate.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Decision;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class DecisionMetersTest {

    record Made(String policy, String outcome, String store, boolean fallback) {
    }

    @Test
    void eachCombinationHasOneMeterMadeOnce() {
        List<Made> made = new ArrayList<>();
        DecisionMeters<Made> meters = new DecisionMeters<>((p, o, s, f) -> {
            Made m = new Made(p, o, s, f);
            made.add(m);
            return m;
        });
        for (String policy : List.of("api", "login")) {
            for (String outcome : DecisionMeters.OUTCOMES) {
                for (Decision.Source source : Decision.Source.values()) {
                    String store = source.name().toLowerCase(Locale.ROOT);
                    for (boolean fallback : new boolean[] {false, true}) {
                        Made first = meters.get(policy, outcome, store, fallback);
                        assertEquals(new Made(policy, outcome, store, fallback), first);
                        assertSame(first, meters.get(policy, outcome, store, fallback), "kept, not made again");
                    }
                }
            }
        }
        assertEquals(2 * DecisionMeters.OUTCOMES.size() * Decision.Source.values().length * 2, made.size());
    }

    @Test
    void everyStoreTheEngineNamesHasASlot() {
        for (Decision.Source source : Decision.Source.values()) {
            assertTrue(DecisionMeters.STORES.contains(source.name().toLowerCase(Locale.ROOT)), source.name());
        }
    }

    @Test
    void aWordWithoutASlotIsStillCounted() {
        DecisionMeters<Made> meters = new DecisionMeters<>(Made::new);
        Made m = meters.get("api", "some_new_outcome", "redis", false);
        assertEquals(new Made("api", "some_new_outcome", "redis", false), m);
        assertNotSame(m, meters.get("api", "some_new_outcome", "redis", false), "made each time, never dropped");
    }
}
