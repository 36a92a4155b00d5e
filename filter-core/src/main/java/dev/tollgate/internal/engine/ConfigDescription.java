package dev.tollgate.internal.engine;

import dev.tollgate.Algorithm;
import dev.tollgate.Costs;
import dev.tollgate.Policy;
import dev.tollgate.internal.config.Durations;
import dev.tollgate.config.TollgateConfig;
import java.util.Locale;

/** The configuration in force, in one line for logs and JMX. Stateless. */
public final class ConfigDescription {

    private ConfigDescription() {
    }

    public static String of(TollgateConfig config) {
        StringBuilder sb = new StringBuilder("key prefix '").append(config.keyPrefix()).append("'; ");
        if (!config.clientAddresses().trusted().isEmpty()) {
            sb.append("trusted proxies [").append(config.clientAddresses().trusted()).append("]; ");
        }
        if (!config.allowList().isEmpty()) {
            sb.append("allow-list [").append(config.allowList()).append("]; ");
        }
        if (!config.plans().isEmpty()) {
            sb.append("plans ").append(config.plans()).append("; ");
        }
        boolean first = true;
        for (Policy p : config.policies()) {
            if (!first) {
                sb.append("; ");
            }
            first = false;
            sb.append("policy ").append(p.name()).append(" [").append(p.mode().name().toLowerCase(Locale.ROOT))
                    .append(p.limits().isEmpty() ? "" : ", limits " + p.limits()).append(", key ").append(p.keyText())
                    .append(", match ").append(p.match())
                    .append(p.cost() != Costs.ONE ? ", cost " + p.cost() : "")
                    .append(p.algorithm() == Algorithm.SLIDING_LOG ? ", sliding log" : "")
                    .append(p.algorithm() == Algorithm.CALENDAR && !p.limits().isEmpty() ? ", zone " + p.limits().get(0).calendar().zone() : "")
                    .append(p.concurrency() == null ? "" : ", concurrency " + p.concurrency().slots() + " (lease "
                            + Durations.format(p.concurrency().lease()) + ")")
                    .append(p.prefetch() == null ? "" : ", prefetch " + p.prefetch().tokens() + " (hold "
                            + Durations.format(p.prefetch().hold()) + ")")
                    .append(p.planLimits().isEmpty() ? "" : ", plan limits " + p.planLimits())
                    .append(p.failureMode() == null ? "" : ", failure mode " + p.failureMode().name().toLowerCase(Locale.ROOT))
                    .append(']');
        }
        return sb.toString();
    }

}
