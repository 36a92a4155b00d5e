package dev.tollgate.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counts, over a property's examples, how often each case it is about was reached, and checks
 * that the generator keeps reaching them: a property whose generator stopped producing refusals
 * would pass while proving nothing about refusals. Not thread-safe: one per property run.
 */
public final class Tally {

    private final Map<String, int[]> counts = new LinkedHashMap<>();

    /** Counts one example under {@code label}, as reaching the case or not. */
    public void count(String label, boolean reached) {
        int[] count = counts.computeIfAbsent(label, l -> new int[2]);
        if (reached) {
            count[0]++;
        }
        count[1]++;
    }

    /** Fails unless at least {@code percent} of the examples counted under {@code label} reached it. */
    public void atLeast(String label, double percent) {
        int[] count = counts.get(label);
        assertTrue(count != null && count[1] > 0, () -> "no example was counted under '" + label + "'");
        double share = 100.0 * count[0] / count[1];
        assertTrue(share >= percent, () -> String.format("'%s' reached in %.1f%% of %d examples, wanted at least %.1f%%: %s",
                label, share, count[1], percent, this));
    }

    /** Fails unless at least one example counted under {@code label} reached it. */
    public void reached(String label) {
        int[] count = counts.get(label);
        assertTrue(count != null && count[0] > 0, () -> "'" + label + "' never reached: " + this);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        counts.forEach((label, count) -> text.append(text.length() == 0 ? "" : ", ")
                .append(label).append(' ').append(count[0]).append('/').append(count[1]));
        return text.toString();
    }
}
