package dev.tollgate.config;

import dev.tollgate.config.text.ConfigMessages;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the names the sources hold that Tollgate will not read: a {@code tollgate.*} key or
 * {@code TOLLGATE_*} variable that is no key (a typo, a case variant such as
 * {@code Tollgate_Redis_Uri}, which the MicroProfile rule does not read), and a key of a policy or
 * plan that {@code tollgate.policies} or {@code tollgate.plans} does not declare. Each finding
 * suggests the nearest key by edit distance. Only names a source can list are seen
 * ({@link ConfigSource#names()}). Stateless and thread-safe.
 */
final class UnknownKeys {

    private UnknownKeys() {
    }

    private static final String PREFIX = "tollgate";
    /** Each template as a pattern: the key (case-sensitive), then its environment name (any case). */
    private static final List<Pattern> TEMPLATES = Settings.ALL.stream().filter(Setting::isTemplate)
            .flatMap(s -> java.util.stream.Stream.of(pattern(s.name(), false), pattern(s.environmentName(), true)))
            .toList();

    /**
     * @param names    every name the sources list, with where it comes from
     * @param policies the declared policies, or {@code null} when the list itself was refused (then no policy's keys are blamed)
     * @param plans    the declared plans, or {@code null} when the list itself was refused
     * @param strict   whether the findings refuse the start (only the wording differs)
     * @return one message per finding, in the order of {@code names}
     */
    static List<String> find(Map<String, String> names, List<String> policies, List<String> plans, boolean strict) {
        Map<String, String> known = spellings(policies == null ? List.of() : policies, plans == null ? List.of() : plans);
        List<String> out = new ArrayList<>();
        String outcome = strict ? "refused (" + Settings.STRICT_CONFIG.name() + "=true)" : "ignored";
        names.forEach((name, source) -> {
            if (!looksLikeTollgate(name) || known.containsKey(name)) {
                return;
            }
            String shown = ConfigMessages.printable(name, 120) + " (from " + ConfigMessages.printable(source, 120) + ")";
            String hint = suggestion(name, known);
            Owner owner = owner(name, policies, plans);
            if (owner == Owner.UNKNOWABLE) {
                return;
            }
            if (owner == null) {
                out.add(ConfigMessages.unknownKey(shown, outcome, hint));
            } else {
                out.add(ConfigMessages.undeclaredKey(shown, owner.what, owner.name, owner.list, owner.declared, outcome, hint));
            }
        });
        return out;
    }

    /**
     * Every spelling that is read, each with its dotted key: the key, its environment names in upper
     * and lower case, and the dotted lower case under which SmallRye Config lists an environment variable.
     */
    static Map<String, String> spellings(List<String> policies, List<String> plans) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Setting<?> s : Settings.ALL) {
            for (String key : concrete(s, policies, plans)) {
                out.putIfAbsent(key, key);
            }
        }
        for (String key : List.copyOf(out.keySet())) {
            String env = Settings.environmentName(key);
            out.putIfAbsent(env, key);
            out.putIfAbsent(env.toLowerCase(Locale.ROOT), key);
            // SmallRye's environment source lists TOLLGATE_DENY_CACHE as tollgate.deny.cache (WildFly, Payara)
            out.putIfAbsent(env.toLowerCase(Locale.ROOT).replace('_', '.'), key);
        }
        return out;
    }

    private static List<String> concrete(Setting<?> s, List<String> policies, List<String> plans) {
        List<String> out = new ArrayList<>();
        for (String policy : s.name().contains("<name>") ? policies : List.of("")) {
            for (String plan : s.name().contains("<plan>") ? plans : List.of("")) {
                out.add(s.forPolicy(policy).forPlan(plan).name());
            }
        }
        return out;
    }

    /** A name that starts with {@code tollgate} or something one typo away from it, and has more after. */
    static boolean looksLikeTollgate(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (int k = PREFIX.length() - 1; k <= PREFIX.length() + 1; k++) {
            if (lower.length() > k + 1 && distance(lower.substring(0, k), PREFIX) <= 1) {
                return true;
            }
        }
        return false;
    }

    /** The nearest spelling that is read, and for a variable the key it stands for; {@code null} when none is near. */
    static String suggestion(String name, Map<String, String> known) {
        String lower = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int bestExact = Integer.MAX_VALUE;
        for (Map.Entry<String, String> e : known.entrySet()) {
            String spelling = e.getKey();
            if (!spelling.equals(e.getValue()) && !spelling.equals(Settings.environmentName(e.getValue()))) {
                continue; // tollgate_redis_uri is read, but TOLLGATE_REDIS_URI is the spelling to suggest
            }
            int d = distance(lower, spelling.toLowerCase(Locale.ROOT));
            if (d > bestDistance) {
                continue;
            }
            int exact = distance(name, spelling); // between tollgate.x_y and TOLLGATE_X_Y, the case decides
            if (d < bestDistance || exact < bestExact) {
                best = spelling;
                bestDistance = d;
                bestExact = exact;
            }
        }
        if (best == null || bestDistance > Math.max(2, name.length() / 8)) {
            return null;
        }
        String key = known.get(best);
        return best.equals(key) ? best : best + " (" + key + ")";
    }

    /** Whose key this is when it has the shape of a policy's or plan's key but names one not declared. */
    private record Owner(String what, String name, String list, List<String> declared) {
        /** The shape of a policy's or plan's key whose list was refused: nothing to say about it. */
        static final Owner UNKNOWABLE = new Owner("", "", "", List.of());
    }

    /** The undeclared owner, {@link Owner#UNKNOWABLE}, or {@code null} when the name has no template's shape. */
    private static Owner owner(String name, List<String> policies, List<String> plans) {
        Owner best = null;
        int shortest = Integer.MAX_VALUE;
        for (Pattern pattern : TEMPLATES) {
            boolean env = (pattern.flags() & Pattern.CASE_INSENSITIVE) != 0;
            Matcher m = pattern.matcher(name);
            if (!m.matches()) {
                continue;
            }
            String policy = group(m, "policy");
            String plan = group(m, "plan");
            Owner o;
            if ((policy != null && policies == null) || (plan != null && plans == null)) {
                o = Owner.UNKNOWABLE;
            } else if (policy != null && !declared(policy, policies, env)) {
                o = new Owner("policy", policy, Settings.POLICIES.name(), policies);
            } else if (plan != null && !declared(plan, plans, env)) {
                o = new Owner("plan", plan, Settings.PLANS.name(), plans);
            } else {
                continue;
            }
            // An environment name is ambiguous (TOLLGATE_POLICY_A_FAILURE_MODE): the shortest owner is the likeliest.
            int length = (policy == null ? 0 : policy.length()) + (plan == null ? 0 : plan.length());
            if (length < shortest) {
                best = o;
                shortest = length;
            }
        }
        return best;
    }

    private static boolean declared(String name, List<String> declared, boolean env) {
        for (String d : declared) {
            if (env ? Settings.environmentName(d).equalsIgnoreCase(name) : d.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static String group(Matcher m, String group) {
        try {
            return m.group(group);
        } catch (IllegalArgumentException e) {
            return null; // the template has no such placeholder
        }
    }

    /** A template as a pattern: {@code <name>} and {@code <plan>} become groups; an environment name in any case. */
    private static Pattern pattern(String template, boolean env) {
        String placeholderName = env ? "<NAME>" : "<name>";
        String placeholderPlan = env ? "<PLAN>" : "<plan>";
        StringBuilder regex = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            if (template.startsWith(placeholderName, i)) {
                regex.append("(?<policy>.+)");
                i += placeholderName.length();
            } else if (template.startsWith(placeholderPlan, i)) {
                regex.append("(?<plan>.+)");
                i += placeholderPlan.length();
            } else {
                regex.append(Pattern.quote(String.valueOf(template.charAt(i))));
                i++;
            }
        }
        return Pattern.compile(regex.toString(), env ? Pattern.CASE_INSENSITIVE : 0);
    }

    /** Edit distance counting an insertion, a deletion, a substitution or a swap of neighbours as one. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
