package dev.tollgate.bench.growth;

import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/** Tollgate configurations for the growth runs, read by Tollgate's own reader from a map. */
final class Configs {

    /**
     * One token an hour, a burst no run can spend: every decision allows, and every bucket stays
     * in its store for an hour per token taken, so the live keys are exactly the clients seen.
     */
    static final String LIMIT = "1/h burst 1000000";

    private Configs() {
    }

    static Map<String, String> base(int policies) {
        Map<String, String> v = new LinkedHashMap<>();
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < policies; i++) {
            names.append(i == 0 ? "" : ",").append("p").append(i);
            v.put("tollgate.policy.p" + i + ".limits", LIMIT);
            v.put("tollgate.policy.p" + i + ".key", "ip");
        }
        v.put("tollgate.policies", names.toString());
        v.put("tollgate.local.max-keys", "100000");
        v.put("tollgate.metrics", "none");
        return v;
    }

    static TollgateConfig load(Map<String, String> values) {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("growth", values)), Configs.class.getClassLoader());
    }
}
