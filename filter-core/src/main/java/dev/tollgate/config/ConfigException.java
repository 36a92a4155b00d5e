package dev.tollgate.config;

import java.util.List;

/**
 * The configuration cannot be used. The message names every bad key, the value it got, where the
 * value came from, and what is accepted; the application must not start.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super(problems.size() == 1
                ? problems.get(0)
                : "Tollgate cannot start, " + problems.size() + " configuration problems:\n  "
                        + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem, one message each. */
    public List<String> problems() {
        return problems;
    }
}
