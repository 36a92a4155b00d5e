package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Options;
import java.nio.file.Path;

/** Placeholder until the scenario lands. */
public final class ScenarioRun {
    private ScenarioRun() {
    }

    public static void run(Path out, Options options) {
        throw new IllegalStateException("not yet");
    }
}
