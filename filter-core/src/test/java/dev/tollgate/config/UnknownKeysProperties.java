package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The unknown-key check against a small model: the keys a configuration reads are every fixed
 * key, and every template with each declared policy and plan; each can be written as the key,
 * its environment name, or that name in lower case (the MicroProfile rule).
 */
class UnknownKeysProperties {

    /** Every spelling the model says is read. */
    static List<String> readSpellings(List<String> policies, List<String> plans) {
        List<String> keys = new ArrayList<>();
        for (Setting<?> s : Settings.ALL) {
            List<String> ps = s.name().contains("<name>") ? policies : List.of("unused");
            List<String> qs = s.name().contains("<plan>") ? plans : List.of("unused");
            for (String p : ps) {
                for (String q : qs) {
                    keys.add(s.name().replace("<name>", p).replace("<plan>", q));
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            String env = k.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
            out.add(k);
            out.add(env);
            out.add(env.toLowerCase(Locale.ROOT));
        }
        return out;
    }

    @Provide
    Arbitrary<List<String>> names() {
        return Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789-._").ofMinLength(1).ofMaxLength(10)
                .filter(n -> Character.isLetterOrDigit(n.charAt(0))).list().ofMinSize(1).ofMaxSize(3).uniqueElements();
    }

    @Provide
    Arbitrary<List<String>> plainNames() {
        return Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789").ofMinLength(1).ofMaxLength(8)
                .list().ofMinSize(1).ofMaxSize(3).uniqueElements();
    }

    @Property
    void noKeyThatIsReadIsEverReported(@ForAll("names") List<String> policies, @ForAll("names") List<String> plans) {
        Map<String, String> names = new LinkedHashMap<>();
        readSpellings(policies, plans).forEach(n -> names.put(n, "test"));
        assertEquals(List.of(), UnknownKeys.find(names, policies, plans, false));
    }

    @Property
    void aNameOneEditFromAKeyIsReportedWithAKeyAtMostOneEditAway(
            @ForAll("names") List<String> policies, @ForAll("names") List<String> plans,
            @ForAll @IntRange(min = 0, max = 10_000) int which, @ForAll @IntRange(min = 0, max = 3) int edit,
            @ForAll @IntRange(min = 0, max = 100) int at, @ForAll("typed") char c) {
        List<String> read = readSpellings(policies, plans);
        List<String> suggestable = new ArrayList<>();
        for (int i = 0; i < read.size(); i += 3) {
            suggestable.add(read.get(i));     // the key
            suggestable.add(read.get(i + 1)); // its environment name
        }
        String original = suggestable.get(which % suggestable.size());
        String typo = edit(original, edit, at % (original.length() + 1), c);
        Assume.that(!read.contains(typo));

        List<String> found = UnknownKeys.find(Map.of(typo, "test"), policies, plans, false);
        assertEquals(1, found.size(), found.toString());
        String message = found.get(0);
        int from = message.indexOf("did you mean ");
        assertTrue(from > 0, message);
        String suggested = message.substring(from + "did you mean ".length()).split("[ ?]")[0];
        assertTrue(suggestable.contains(suggested), suggested + " is not a spelling the model reads; " + message);
        assertTrue(UnknownKeys.distance(typo.toLowerCase(Locale.ROOT), suggested.toLowerCase(Locale.ROOT)) <= 1, message);
        if (suggestable.stream().filter(s -> UnknownKeys.distance(typo.toLowerCase(Locale.ROOT),
                s.toLowerCase(Locale.ROOT)) <= 1).count() == 1) {
            assertEquals(original, suggested, "the only key one edit away is the one meant");
        }
    }

    @Property
    void everyKeyOfAPolicyThatIsNotDeclaredIsReportedAsThatPolicys(
            @ForAll("plainNames") List<String> policies, @ForAll("plainNames") List<String> plans,
            @ForAll("plainNames") List<String> others, @ForAll @IntRange(min = 0, max = 100) int which,
            @ForAll boolean asVariable) {
        String stranger = others.get(0);
        Assume.that(!policies.contains(stranger));
        List<Setting<?>> policyKeys = Settings.ALL.stream().filter(s -> s.name().contains("<name>")).toList();
        Setting<?> s = policyKeys.get(which % policyKeys.size()).forPolicy(stranger).forPlan(plans.get(0));
        String name = asVariable ? s.environmentName() : s.name();

        List<String> found = UnknownKeys.find(Map.of(name, "test"), policies, plans, false);
        assertEquals(1, found.size(), found.toString());
        String shown = asVariable ? stranger.toUpperCase(Locale.ROOT) : stranger;
        assertTrue(found.get(0).startsWith("TOLLGATE-005: " + name + " (from test) is a key of policy '" + shown
                + "', which tollgate.policies does not declare"), found.get(0));
    }

    @Provide
    Arbitrary<Character> typed() {
        return Arbitraries.chars().with("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".toCharArray());
    }

    /** Insert, delete, substitute, or swap the neighbours at {@code at}. */
    static String edit(String s, int kind, int at, char c) {
        StringBuilder b = new StringBuilder(s);
        int in = Math.min(at, s.length() - 1);
        switch (kind) {
            case 0 -> b.insert(at, c);
            case 1 -> b.deleteCharAt(in);
            case 2 -> b.setCharAt(in, c);
            default -> {
                if (in + 1 < s.length()) {
                    b.setCharAt(in, s.charAt(in + 1));
                    b.setCharAt(in + 1, s.charAt(in));
                }
            }
        }
        return b.toString();
    }
}
