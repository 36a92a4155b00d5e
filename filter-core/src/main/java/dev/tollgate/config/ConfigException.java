package dev.tollgate.config;

import java.util.List;

/**
 * The configuration cannot be used. The message names every bad key, the value it got, where the
 * value came from, and what is accepted; the application must not start. It also lists the names
 * the sources hold that Tollgate does not read ({@code TOLLGATE-004}, {@code TOLLGATE-005}) with
 * their "did you mean", since a mistyped name is often why a value is missing
 * ({@code TOLLGATE_POLICY_DEFAULT_LIMIT} for {@code TOLLGATE_POLICY_DEFAULT_LIMITS}).
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;
    private final List<String> unread;

    public ConfigException(List<String> problems) {
        this(problems, List.of());
    }

    /**
     * @param problems what stops the start, one message each
     * @param unread   the names found that no key matches, each with its hint; with
     *                 {@code tollgate.strict-config} they are among {@code problems} instead
     */
    public ConfigException(List<String> problems, List<String> unread) {
        super(message(problems, unread));
        this.problems = List.copyOf(problems);
        this.unread = List.copyOf(unread);
    }

    private static String message(List<String> problems, List<String> unread) {
        if (problems.size() == 1 && unread.isEmpty()) {
            return problems.get(0);
        }
        String out = "Tollgate cannot start, " + problems.size() + " configuration problem"
                + (problems.size() == 1 ? "" : "s") + ":\n  " + String.join("\n  ", problems);
        if (!unread.isEmpty()) {
            out += "\nand " + (unread.size() == 1 ? "a name" : unread.size() + " names")
                    + " Tollgate does not read, which may be the cause:\n  " + String.join("\n  ", unread);
        }
        return out;
    }

    /** Each problem, one message each. */
    public List<String> problems() {
        return problems;
    }

    /** The names found that Tollgate does not read, one message each with its hint (empty with strict-config). */
    public List<String> unread() {
        return unread;
    }
}
