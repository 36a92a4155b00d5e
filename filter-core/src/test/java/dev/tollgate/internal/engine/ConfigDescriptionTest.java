package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Policy;
import dev.tollgate.config.Setting;
import dev.tollgate.config.Settings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The start-up description ({@code TOLLGATE-010}, JMX) shows every setting of a policy that differs
 * from its default. One variant per policy setting: the setting changed from a context where it has
 * its default, what the description must then show, and which fields of {@link Policy} it sets. A
 * policy setting of {@link Settings} without a variant here, or a field of {@link Policy} that no
 * variant sets, fails the test: a new setting must be described (and added here) to pass.
 */
class ConfigDescriptionTest {

    static final String BASE_LIMITS = "10/s burst 20";

    /**
     * @param setting    the key after {@code tollgate.policy.p.}, as {@link Settings} names it
     * @param context    other keys the setting needs (its default is in force there)
     * @param value      the setting's value, other than its default
     * @param shown      what the description shows then, and not before
     * @param components the fields of {@link Policy} the setting sets
     */
    record Variant(String setting, Map<String, String> context, String value, String shown, Set<String> components) {

        String key() {
            return "tollgate.policy.p." + setting.replace("<plan>", "pro");
        }

        Map<String, String> without() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("tollgate.policies", "p");
            m.put("tollgate.policy.p.limits", BASE_LIMITS);
            m.putAll(context);
            return m;
        }

        Map<String, String> with() {
            Map<String, String> m = without();
            m.put(key(), value);
            return m;
        }
    }

    static final Map<String, String> NONE = Map.of();
    static final Map<String, String> PLANS = Map.of("tollgate.plans", "free,pro", "tollgate.plan.default", "free");

    static final List<Variant> VARIANTS = List.of(
            new Variant("limits", NONE, "7/s burst 9", "limits [7/s burst 9]", Set.of("limits")),
            new Variant("key", NONE, "ip+route", "key ip+route", Set.of("key", "keyText")),
            new Variant("match", NONE, "GET /api/**", "/api/**", Set.of("match")),
            new Variant("mode", NONE, "shadow", "[shadow", Set.of("mode")),
            new Variant("cost", NONE, "2", "cost 2", Set.of("cost")),
            new Variant("algorithm", Map.of("tollgate.policy.p.limits", "10/s"), "sliding-log", "sliding log",
                    Set.of("algorithm")),
            new Variant("zone", Map.of("tollgate.policy.p.limits", "1000/day calendar"), "Europe/Berlin",
                    "zone Europe/Berlin", Set.of("limits")),
            new Variant("concurrency", NONE, "3", "concurrency 3", Set.of("concurrency")),
            new Variant("concurrency-lease", Map.of("tollgate.policy.p.concurrency", "3"), "30s", "lease 30s",
                    Set.of("concurrency")),
            new Variant("failure-mode", NONE, "open", "failure mode open", Set.of("failureMode")),
            new Variant("limits.<plan>", PLANS, "100/s burst 50", "plan limits {pro=[100/s burst 50]}",
                    Set.of("planLimits")),
            new Variant("prefetch", NONE, "2", "prefetch 2", Set.of("prefetch")),
            new Variant("prefetch-hold", Map.of("tollgate.policy.p.prefetch", "2"), "500ms", "hold 500ms",
                    Set.of("prefetch")),
            new Variant("refusal-status", NONE, "503", "refusal [status 503]", Set.of("refusal")),
            new Variant("refusal-type", NONE, "https://example.com/problems/quota",
                    "refusal [type https://example.com/problems/quota]", Set.of("refusal")),
            new Variant("refusal-title", NONE, "Partner quota used up", "refusal [title 'Partner quota used up']",
                    Set.of("refusal")),
            new Variant("refusal-headers", NONE, "X-Reason: quota; Cache-Control: no-store",
                    "refusal [headers [X-Reason: quota; Cache-Control: no-store]]", Set.of("refusal")),
            new Variant("max-wait", NONE, "2s", "max-wait 2s", Set.of("outbound")),
            new Variant("max-pause", NONE, "10min", "max-pause 10min", Set.of("outbound")));

    static Policy policy(Map<String, String> values) {
        TollgateConfig c = TestConfigs.withProviders(values);
        return c.policy("p").orElseThrow();
    }

    @Test
    void everyPolicySettingOfSettingsHasAVariantHere() {
        String prefix = "tollgate.policy.<name>.";
        Set<String> settings = Settings.ALL.stream().map(Setting::name).filter(n -> n.startsWith(prefix))
                .map(n -> n.substring(prefix.length())).collect(Collectors.toCollection(TreeSet::new));
        Set<String> here = VARIANTS.stream().map(Variant::setting).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(settings, here, "a policy setting without a variant: describe it in ConfigDescription, then add it");
    }

    @Test
    void everyFieldOfPolicyIsSetBySomeVariant() {
        Set<String> fields = fields().stream().map(Field::getName).collect(Collectors.toCollection(TreeSet::new));
        fields.remove("name"); // always shown first: "policy <name> ["
        Set<String> covered = VARIANTS.stream().flatMap(v -> v.components().stream())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(fields, covered, "a field of Policy no variant sets: describe it in ConfigDescription, then add it");
    }

    /** Each setting, changed from its default, is shown; at its default it is not. */
    @Test
    void eachSettingThatDiffersFromItsDefaultIsShown() {
        List<String> missing = new ArrayList<>();
        for (Variant v : VARIANTS) {
            String before = ConfigDescription.of(policy(v.without()));
            String after = ConfigDescription.of(policy(v.with()));
            assertFalse(before.contains(v.shown()), v.setting() + " at its default: " + before);
            if (!after.contains(v.shown())) {
                missing.add(v.key() + "=" + v.value() + " is not shown as \"" + v.shown() + "\" in " + after);
            }
        }
        assertEquals(List.of(), missing);
    }

    /**
     * The same from the record's side: a policy that differs from another in the fields a variant
     * sets, and in nothing else, is described differently. Fails for a field that is read and
     * never shown.
     */
    @Test
    void aPolicyThatDiffersInOneFieldOnlyIsDescribedDifferently() throws Exception {
        for (Variant v : VARIANTS) {
            Policy without = policy(v.without());
            Policy with = policy(v.with());
            Policy swapped = replace(without, with, v.components());
            assertNotEquals(ConfigDescription.of(without), ConfigDescription.of(swapped),
                    "policy " + v.components() + " taken from " + v.key() + "=" + v.value());
            assertTrue(ConfigDescription.of(swapped).contains(v.shown()), ConfigDescription.of(swapped));
        }
    }

    /** The fields of a policy (its state), every one of which a description must show. */
    static List<Field> fields() {
        return Arrays.stream(Policy.class.getDeclaredFields()).filter(f -> !Modifier.isStatic(f.getModifiers())).toList();
    }

    /** {@code base} with the named fields taken from {@code from}: a copy whose fields are set one by one. */
    static Policy replace(Policy base, Policy from, Set<String> fields) throws Exception {
        Policy copy = base.toBuilder().build();
        Set<String> known = new HashSet<>();
        for (Field f : fields()) {
            known.add(f.getName());
            if (fields.contains(f.getName())) {
                f.setAccessible(true);
                f.set(copy, f.get(from));
            }
        }
        assertTrue(known.containsAll(fields), "no such field of Policy: " + fields);
        return copy;
    }

    @Test
    void theOutboundAndRefusalSettingsOfTheReadmeAreShownTogether() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("tollgate.policies", "partner");
        m.put("tollgate.policy.partner.limits", "100/min");
        m.put("tollgate.policy.partner.match", "OUTBOUND /");
        m.put("tollgate.policy.partner.max-wait", "10s");
        m.put("tollgate.policy.partner.max-pause", "1h");
        m.put("tollgate.policy.partner.refusal-status", "503");
        m.put("tollgate.policy.partner.refusal-title", "Partner quota used up");
        TollgateConfig c = TestConfigs.withProviders(m);
        String d = ConfigDescription.of(c);
        assertTrue(d.endsWith(", refusal [status 503, title 'Partner quota used up'], max-wait 10s, max-pause 1h]"), d);
    }

    @Test
    void aPolicyWithOnlyDefaultsShowsNoneOfTheOptionalParts() {
        String d = ConfigDescription.of(policy(Map.of("tollgate.policies", "p", "tollgate.policy.p.limits", BASE_LIMITS)));
        assertEquals("policy p [enforce, limits [10/s burst 20], key ip, match " + policy(Map.of("tollgate.policies", "p",
                "tollgate.policy.p.limits", BASE_LIMITS)).match() + "]", d);
    }
}
