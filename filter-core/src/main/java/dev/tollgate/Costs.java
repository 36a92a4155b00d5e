package dev.tollgate;

import java.util.ArrayList;
import java.util.List;

/**
 * What a request costs under a policy: a fixed number, or a number per route and method, e.g.
 * {@code 10 GET /export/**, 2 POST /**, 1}. Entries are tried in order; a bare number matches
 * every request; a request no entry matches costs 1. Entries match as {@code match} does
 * ({@link RequestMatcher#parse}): {@code HEAD} costs what {@code GET} costs, and every spelling of
 * a path the application serves the same way costs the same.
 *
 * <p>Immutable and thread-safe.
 */
public final class Costs {

    public static final String SYNTAX = "a whole number, or entries '<cost> [METHOD] /pattern' separated by ','"
            + " tried in order, a bare number matching every request, e.g. '10 GET /export/**, 2 POST /**, 1'";

    /** Every request costs one token. */
    public static final Costs ONE = new Costs(List.of(new Rule(1, RequestMatcher.ALL)), "1");

    private final List<Rule> rules;
    private final String text;

    private record Rule(long cost, RequestMatcher match) {
    }

    private Costs(List<Rule> rules, String text) {
        this.rules = List.copyOf(rules);
        this.text = text;
    }

    /** A fixed cost. */
    public static Costs of(long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("a cost must be at least 1, got " + cost);
        }
        return cost == 1 ? ONE : new Costs(List.of(new Rule(cost, RequestMatcher.ALL)), Long.toString(cost));
    }

    /** Parses {@link #SYNTAX}. */
    public static Costs parse(String text) {
        List<Rule> rules = new ArrayList<>();
        for (String raw : text.split(",")) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int space = entry.indexOf(' ');
            String number = space < 0 ? entry : entry.substring(0, space);
            long cost;
            try {
                cost = Long.parseLong(number);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + entry + "' does not start with a whole number");
            }
            if (cost < 1 || cost > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("'" + entry + "': a cost must be from 1 to " + Integer.MAX_VALUE);
            }
            if (!rules.isEmpty() && rules.get(rules.size() - 1).match == RequestMatcher.ALL) {
                throw new IllegalArgumentException("'" + entry + "' comes after a bare number, which matches every request:"
                        + " it can never apply");
            }
            RequestMatcher match = space < 0 ? RequestMatcher.ALL : RequestMatcher.parse(entry.substring(space + 1));
            rules.add(new Rule(cost, match));
        }
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("no cost given");
        }
        return new Costs(rules, text.trim());
    }

    /** The cost of a request. */
    public long of(String method, String path) {
        for (int i = 0; i < rules.size(); i++) { // by index: asked on every request, no iterator
            Rule r = rules.get(i);
            if (r.match.matches(method, path)) {
                return r.cost;
            }
        }
        return 1;
    }

    /** The highest cost any request can have. */
    public long max() {
        long max = 1;
        for (Rule r : rules) {
            max = Math.max(max, r.cost);
        }
        return max;
    }

    @Override
    public String toString() {
        return text;
    }
}
