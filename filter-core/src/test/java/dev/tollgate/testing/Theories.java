package dev.tollgate.testing;

import org.quicktheories.QuickTheory;

/**
 * Where every property of the suite starts: QuickTheories with a stated number of examples.
 *
 * <p>A falsified property fails its JUnit test with the smallest counterexample QuickTheories
 * shrank to and a line {@code Seed was N}. Running the same test with {@code -DQT_SEED=N}
 * replays exactly that run (QuickTheories reads the seed from that system property; Maven passes
 * {@code -D} properties on to the forked test JVM). {@code -DQT_EXAMPLES} is ignored here on
 * purpose: each property states its own number of examples, so a run cannot quietly try fewer.
 */
public final class Theories {

    private Theories() {
    }

    /** QuickTheories trying {@code examples} generated values (more under shrinking). */
    public static QuickTheory qt(int examples) {
        return QuickTheory.qt().withExamples(examples);
    }
}
