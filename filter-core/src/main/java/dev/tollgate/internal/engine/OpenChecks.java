package dev.tollgate.internal.engine;

import dev.tollgate.Policy;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.Settings;
import dev.tollgate.config.ConfigValue;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.config.StoreSettings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.config.text.ConfigMessages;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.redis.RedisTls;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What only the engine can tell about a configuration, checked when it opens its stores and at
 * every reload: that no two buckets share a compact key tag (which needs the key's own hash), and
 * that the TLS trust and key stores can be read (which needs the TLS context the Redis connection
 * will use). Reported as the configuration reports a bad value ({@code TOLLGATE-001}, through a
 * {@link ConfigException}), so a start with such a value stops, naming key, value and what is
 * accepted, and a reload with one is refused. Stateless; thread-safe.
 */
public final class OpenChecks {

    /** Where a value came from when the configuration was not read from sources. */
    static final String NOT_FROM_SOURCES = "the configuration given";

    private OpenChecks() {
    }

    /** @throws ConfigException listing every problem {@link #problems} finds */
    public static void check(TollgateConfig config) {
        List<String> problems = problems(config);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    /** The problems of {@code config} that the engine finds; empty when there are none. */
    public static List<String> problems(TollgateConfig config) {
        List<String> problems = new ArrayList<>(0);
        if (config.store().compactKeys()) {
            compactTags(config.policies(), problems);
        }
        if (config.store() instanceof StoreSettings.OnRedis onRedis) {
            tlsStores(onRedis.redis().tlsOptions(), config.origins(), problems);
        }
        return problems;
    }

    /**
     * Every bucket name a key is made of: each policy, and each plan with limits of its own
     * ({@link BucketKeys#bucketName}): 'api@tier116' and 'api' sharing a tag would share a bucket.
     */
    private static void compactTags(List<Policy> policies, List<String> problems) {
        Map<String, String> tags = new HashMap<>();
        for (Policy policy : policies) {
            List<String> names = new ArrayList<>(List.of(policy.name()));
            policy.planLimits().keySet().stream().sorted().forEach(plan -> names.add(BucketKeys.bucketName(policy, plan)));
            for (String name : names) {
                String key = BucketKeys.compactKey("", name, "", false);
                String other = tags.put(key.substring(key.length() - 2), name);
                if (other != null) {
                    problems.add(ConfigMessages.bad("buckets '" + other + "' and '" + name + "' hash to the same"
                            + " compact key tag; rename a policy or plan, or set " + Settings.REDIS_KEY_FORMAT.name()
                            + "=readable"));
                }
            }
        }
    }

    /** A trust or key store that cannot be read: a bad value of the key the store's check names. */
    private static void tlsStores(RedisSettings.TlsOptions options, Map<String, ConfigValue> origins, List<String> problems) {
        try {
            RedisTls.context(options);
        } catch (RedisTls.BadStoreException e) {
            ConfigValue v = origins.get(e.key());
            if (v == null) {
                v = new ConfigValue(e.key(), shown(options, e.key()), NOT_FROM_SOURCES);
            }
            problems.add(ConfigMessages.badValue(v, e.getMessage(), e.accepted()));
        }
    }

    /** The value of {@code key} in {@code options} as a message shows it: a password as ****. */
    private static String shown(RedisSettings.TlsOptions options, String key) {
        if (key.equals(Settings.REDIS_TLS_TRUSTSTORE.name())) {
            return options.truststore();
        }
        if (key.equals(Settings.REDIS_TLS_KEY.name())) {
            return options.clientKey();
        }
        if (key.equals(Settings.REDIS_TLS_CERTIFICATE.name())) {
            return options.clientCertificate();
        }
        return key.equals(Settings.REDIS_TLS_KEYSTORE.name()) ? options.keystore() : "****";
    }
}
