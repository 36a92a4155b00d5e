package dev.tollgate.internal.engine;

import dev.tollgate.Algorithm;
import dev.tollgate.Costs;
import dev.tollgate.HttpAnswer;
import dev.tollgate.Outbound;
import dev.tollgate.Policy;
import dev.tollgate.Refusal;
import dev.tollgate.config.text.Durations;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.identity.BucketKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The configuration in force, in one line for logs and JMX. Each policy shows its name, mode,
 * limits, key and match, and every other setting that differs from its default (the refusal's
 * shape and the outbound settings only then); {@code ConfigDescriptionTest} fails when a field of
 * {@link Policy} is not shown. Stateless.
 */
public final class ConfigDescription {

    private ConfigDescription() {
    }

    public static String of(TollgateConfig config) {
        // the namespace as keys hold it (made safe: no control character reaches the log), and where it came from
        StringBuilder sb = new StringBuilder("key prefix '").append(config.store().keyPrefix()).append("', namespace '")
                .append(BucketKeys.namespace(config.namespace().value())).append("' (")
                .append(config.namespace().source()).append("); ");
        if (!config.identity().clientAddresses().trusted().isEmpty()) {
            sb.append("trusted proxies [").append(config.identity().clientAddresses().trusted()).append("]; ");
        }
        if (!config.identity().allowList().isEmpty()) {
            sb.append("allow-list [").append(config.identity().allowList()).append("]; ");
        }
        if (!config.identity().plans().isEmpty()) {
            sb.append("plans ").append(config.identity().plans()).append("; ");
        }
        boolean first = true;
        for (Policy p : config.policies()) {
            if (!first) {
                sb.append("; ");
            }
            first = false;
            sb.append(of(p));
        }
        return sb.toString();
    }

    /** One policy: {@code policy <name> [<mode>, limits [...], key ..., match ..., <what differs from its default>]}. */
    static String of(Policy p) {
        return "policy " + p.name() + " [" + p.mode().name().toLowerCase(Locale.ROOT)
                + (p.limits().isEmpty() ? "" : ", limits " + p.limits()) + ", key " + p.keyText()
                + ", match " + p.match()
                + (p.cost().toString().equals(Costs.ONE.toString()) ? "" : ", cost " + p.cost())
                + (p.algorithm() == Algorithm.SLIDING_LOG ? ", sliding log" : "")
                + (p.algorithm() == Algorithm.CALENDAR && !p.limits().isEmpty() ? ", zone " + p.limits().get(0).calendar().zone() : "")
                + (p.concurrency() == null ? "" : ", concurrency " + p.concurrency().slots() + " (lease "
                        + Durations.format(p.concurrency().lease()) + ")")
                + (p.prefetch() == null ? "" : ", prefetch " + p.prefetch().tokens() + " (hold "
                        + Durations.format(p.prefetch().hold()) + ")")
                + (p.planLimits().isEmpty() ? "" : ", plan limits " + p.planLimits())
                + (p.failureMode() == null ? "" : ", failure mode " + p.failureMode().name().toLowerCase(Locale.ROOT))
                + refusal(p.refusal())
                + outbound(p.outbound())
                + "]";
    }

    /** {@code , refusal [status 503, type <uri>, title '<title>', headers [Name: value; ...]]}: the parts not standard. */
    private static String refusal(Refusal r) {
        List<String> parts = new ArrayList<>();
        if (r.status() != Refusal.STANDARD.status()) {
            parts.add("status " + r.status());
        }
        if (!r.type().equals(Refusal.STANDARD.type())) {
            parts.add("type " + r.type());
        }
        if (!r.title().equals(Refusal.STANDARD.title())) {
            parts.add("title '" + r.title() + "'");
        }
        if (!r.headers().isEmpty()) {
            parts.add("headers [" + r.headers().stream().map(ConfigDescription::header).collect(Collectors.joining("; ")) + "]");
        }
        return parts.isEmpty() ? "" : ", refusal " + parts;
    }

    private static String header(HttpAnswer.Header h) {
        return h.name() + ": " + h.value();
    }

    /** {@code , max-wait 2s, max-pause 1min}: each only when not the default. */
    private static String outbound(Outbound o) {
        return (o.maxWait().equals(Outbound.DEFAULT.maxWait()) ? "" : ", max-wait " + Durations.format(o.maxWait()))
                + (o.maxPause().equals(Outbound.DEFAULT.maxPause()) ? "" : ", max-pause " + Durations.format(o.maxPause()));
    }
}
