package dev.tollgate;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Kinds of client (free, pro, internal) with limits of their own. The plan of a request comes
 * from a role of its principal, or from a header that a trusted proxy sets; a request that shows
 * no plan gets the default plan.
 *
 * <p>Immutable and thread-safe.
 */
public final class Plans {

    /** How the plan is chosen. */
    public enum Selector {
        /** The first declared plan whose role the principal has. */
        ROLE,
        /** The header's value, believed only when the peer is a trusted proxy. */
        HEADER
    }

    /** No plans: every policy has its one set of limits. */
    public static final Plans NONE = new Plans(List.of(), null, Selector.ROLE, null, Map.of());

    private final List<String> names;
    private final String defaultPlan;
    private final Selector selector;
    private final String header;
    /** For ROLE: plan -> role; for HEADER: plan -> header value (lower case). */
    private final Map<String, String> markers;

    public Plans(List<String> names, String defaultPlan, Selector selector, String header, Map<String, String> markers) {
        this.names = List.copyOf(names);
        this.defaultPlan = defaultPlan;
        this.selector = selector;
        this.header = header;
        this.markers = Map.copyOf(markers);
    }

    public List<String> names() {
        return names;
    }

    public String defaultPlan() {
        return defaultPlan;
    }

    public boolean isEmpty() {
        return names.isEmpty();
    }

    /** The plan of a request; {@code null} when there are no plans. Never throws. */
    public String select(RequestView request, boolean fromTrustedProxy) {
        if (names.isEmpty()) {
            return null;
        }
        if (selector == Selector.ROLE) {
            if (request.principal() != null) {
                for (String plan : names) {
                    if (request.userInRole(markers.get(plan))) {
                        return plan;
                    }
                }
            }
            return defaultPlan;
        }
        if (!fromTrustedProxy) {
            return defaultPlan;
        }
        String value = request.header(header);
        if (value != null) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            for (String plan : names) {
                if (markers.get(plan).equals(v)) {
                    return plan;
                }
            }
        }
        return defaultPlan;
    }

    /** Whether the plan depends on the principal (for the JAX-RS phases). */
    public boolean usesPrincipal() {
        return !names.isEmpty() && selector == Selector.ROLE;
    }

    @Override
    public String toString() {
        if (names.isEmpty()) {
            return "none";
        }
        return names + " by " + (selector == Selector.ROLE ? "role" : "header " + header) + ", default " + defaultPlan;
    }
}
