package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.config.text.ConfigMessages;
import dev.tollgate.internal.engine.OpenChecks;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every key of {@link Settings#ALL} (with a policy and a plan substituted for {@code <name>} and
 * {@code <plan>}, and declared) gets absurd values: negative, zero and huge numbers, wrong units,
 * braces, newlines, quotes, binary junk, 100 KB strings, and for some keys values that parse but
 * make no sense. Each must either stop start-up (the load, then the checks the engine makes when it
 * opens, {@link OpenChecks}, as {@code Engines.open} does) with a {@link ConfigException} whose message names
 * the key, shows the value (for {@code tollgate.redis.uri}: never its password), says where it came
 * from and what is accepted, in one bounded, printable line, blaming no other key; or load, where
 * the value is legitimately acceptable.
 *
 * <p>What the main code does not do yet is listed in {@link #KNOWN}, key by key: the test fails on
 * any flaw not listed there (a regression), and prints every flaw it sees (the findings).
 */
class AbsurdConfigTest {

    static final String POLICY = "api";
    static final String PLAN = "pro";
    static final String SOURCE = "test map";
    static final String SECRET = "s3cr3t-pw";
    /** A problem longer than this is not one readable log line (the value alone is clipped at 200). */
    static final int MAX_PROBLEM_CHARS = 1000;

    /** What can be wrong with how a key treats an absurd value. */
    enum Flaw {
        /** The absurd value loads without a word. */
        ACCEPTED,
        /** Refused, but no problem names the key. */
        KEY_NOT_NAMED,
        /** The problem does not show the value (as the log shows it: control characters as '?', clipped at 200). */
        VALUE_NOT_SHOWN,
        /** The problem does not say where the value came from. */
        SOURCE_NOT_SHOWN,
        /** The problem does not say what is accepted. */
        ACCEPTED_NOT_SHOWN,
        /** The problem is longer than {@value #MAX_PROBLEM_CHARS} characters (the raw value is repeated unclipped). */
        UNBOUNDED,
        /** The problem carries control characters of the value (CR, LF, ESC...): log injection. */
        CONTROL_CHARACTERS,
        /** Other keys are blamed too, although only this one is wrong. */
        CASCADE,
        /** The redis URI's password appears in the message. */
        PASSWORD_SHOWN,
        /** Something other than a ConfigException was thrown. */
        WRONG_EXCEPTION
    }

    /**
     * The flaws the main code has today (each one reported as a finding): the test fails only on a
     * flaw not listed here.
     */
    static final Map<String, Set<Flaw>> KNOWN = known();

    private static Map<String, Set<Flaw>> known() {
        // Every flaw the first run of this test found is fixed: reasons are cleaned and clipped,
        // '/0' ranges and empty lists are refused, a bare cost ends the list, a plan's role and
        // value are checked, a bad policy list blames nothing else, and any user info of a
        // malformed URI is masked.
        return Map.of();
    }

    static List<String> absurdValues() {
        List<String> v = new ArrayList<>(List.of(
                "-1", "0", "99999999999999999999999999", "1e309", "NaN", "10 parsecs", "10/fortnight", "{}", "{tag}",
                "line1\nline2", "\r\n", "  ", "\"'`;--", "%00%0d%0a", "${HOME}", " , , ",
                "\u221e \u00fcn\u00efc\u00f6d\u00e9 \ud83d\udea6", "\u0000\u0001\u0007\u001b[2J",
                "x".repeat(100_000), "{" + "a".repeat(100_000) + "}", "a\u001b[31mred\nTOLLGATE-010: forged line"));
        Random r = new Random(1);
        StringBuilder junk = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            junk.append((char) r.nextInt(256));
        }
        v.add(junk.toString());
        return v;
    }

    /** Values that parse, or nearly, but make no sense for one key. */
    static List<String> specificValues(String key) {
        switch (key) {
            case "tollgate.redis.uri":
                return List.of("redis://app:" + SECRET + "@redis.example:99999", "redis://:" + SECRET + "@",
                        "redis:app:" + SECRET + "@redis.example", "app:" + SECRET + "@redis.example:6379",
                        "redis//app:" + SECRET + "@redis.example", "rediss://app:" + SECRET + "@redis.example/abc",
                        "redis://app:" + SECRET + "@redis.example/0?ssl=true", "redis://app:" + SECRET + " x@redis.example",
                        "http://app:" + SECRET + "@redis.example", "redis://app:" + SECRET + "@{redis.example}",
                        "redis://app:" + SECRET + "@redis.example:6379/-1", "redis://app@" + SECRET + "@redis.example\nx");
            case "tollgate.redis.timeout":
                return List.of("PT-1S", "P1000D", "0.0000001ms", "-5ms", "5 lightyears");
            case "tollgate.retry-after-jitter":
                return List.of("PT-1S", "P1000D", "-1s");
            case "tollgate.trusted-proxies":
            case "tollgate.allow-list":
                return List.of("0.0.0.0/0", "::/0", "10.0.0.0/-1", "10.0.0.0/33", "999.1.1.1", "10.0.0.0/8/8");
            case "tollgate.policy.api.cost":
                return List.of("1, 10 GET /export/**", "21", "2147483648", "10 GET", "1.5");
            case "tollgate.policy.api.limits":
            case "tollgate.policy.api.limits.pro":
                return List.of("10/s burst 0", "0/s", "10/0s", "1/s burst 99999999999999999999", "1/day burst 100000",
                        "0.0000001/s");
            case "tollgate.policy.api.match":
                return List.of("api/**", "GET POST /x", "/a**b", "GET||POST /x");
            default:
                return List.of();
        }
    }

    /** Whether an accepted value is legitimately acceptable for the key. */
    static boolean legitimatelyAccepted(String key, String value) {
        String v = value.trim();
        if (v.isEmpty()) {
            return true; // blank counts as unset, as in MicroProfile Config
        }
        switch (key) {
            case "tollgate.redis.key-prefix":
                return Pattern.matches("[A-Za-z0-9_.:/-]{0,64}", v); // any such prefix keeps keys safe
            case "tollgate.plans":
            case "tollgate.policies":
                // a plan or policy named "0" or "NaN" is a name (refused only because its default or limits are missing)
                return Pattern.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", v);
            case "tollgate.redis.sentinel.database":
                return Pattern.matches("[0-9]{1,10}", v) && Long.parseLong(v) <= Integer.MAX_VALUE;
            case "tollgate.redis.user":
            case "tollgate.redis.password":
            case "tollgate.redis.sentinel.user":
            case "tollgate.redis.sentinel.password":
            case "tollgate.redis.sentinel.master":
                // user names, passwords and master names are opaque: '-1' is a fine password
                return v.length() <= 512 && v.chars().noneMatch(c -> c < 0x20 || c == 0x7f);
            case "tollgate.namespace":
                // a namespace is any name an application can have ('0' is one); the key holds it encoded and bounded
                return v.length() <= 512 && v.chars().noneMatch(c -> c < 0x20 || c == 0x7f);
            case "tollgate.plan.pro.role":
            case "tollgate.plan.pro.value":
                // roles and header values are opaque strings; but a value with control characters or
                // longer than any header could carry can never match
                return v.length() <= 1000 && v.chars().noneMatch(c -> c < 0x20 || c == 0x7f);
            case "tollgate.policy.api.refusal-title":
                // a problem title is free text: '-1' is a fine title; JSON escaping keeps the body well formed
                return v.length() <= 200 && v.chars().noneMatch(Character::isISOControl);
            default:
                return false;
        }
    }

    static Map<String, String> base(String key) {
        Map<String, String> m = new HashMap<>();
        m.put(Settings.POLICIES.name(), POLICY);
        m.put(Settings.POLICY_LIMITS.forPolicy(POLICY).name(), "10/s burst 20");
        m.put(Settings.PLANS.name(), PLAN + ",free");
        m.put(Settings.PLAN_DEFAULT.name(), "free");
        m.put(Settings.TRUSTED_PROXIES.name(), "10.0.0.0/8");
        if (key.equals(Settings.REDIS_SENTINEL_MASTER.name())) {
            m.put(Settings.REDIS_SENTINEL_NODES.name(), "127.0.0.1:26379"); // else the master alone is incomplete
        }
        if (key.equals(Settings.REDIS_SENTINEL_NODES.name()) || key.startsWith("tollgate.redis.sentinel.") && !key.equals(
                Settings.REDIS_SENTINEL_MASTER.name())) {
            m.put(Settings.REDIS_SENTINEL_MASTER.name(), "mymaster");
        }
        if (key.startsWith("tollgate.redis.sentinel.") && !key.equals(Settings.REDIS_SENTINEL_NODES.name())) {
            m.put(Settings.REDIS_SENTINEL_NODES.name(), "127.0.0.1:26379");
        }
        if (key.equals(Settings.REDIS_SENTINEL_USER.name())) {
            m.put(Settings.REDIS_SENTINEL_PASSWORD.name(), "pw"); // else the user alone is incomplete
        }
        if (key.equals(Settings.REDIS_TLS_TRUSTSTORE.name()) || key.equals(Settings.REDIS_TLS_KEYSTORE.name())) {
            // else no Redis connection is opened, so the engine never reads the store (issue 23)
            m.put(Settings.REDIS_URI.name(), "rediss://127.0.0.1:6380");
        }
        if (key.equals(Settings.PLAN_VALUE.forPlan(PLAN).name())) {
            m.put(Settings.PLAN_SELECTOR.name(), "header:X-Plan"); // else the plan's header value is not read at all
        }
        return m;
    }

    @Test
    void everyKeyRefusesAbsurdValuesWithAMessageThatNamesKeyValueSourceAndWhatIsAccepted() {
        Map<String, Map<Flaw, List<String>>> found = new TreeMap<>();
        int cases = 0;
        for (Setting<?> k : Settings.ALL) {
            String key = k.name().replace("<name>", POLICY).replace("<plan>", PLAN);
            List<String> values = new ArrayList<>(absurdValues());
            values.addAll(specificValues(key));
            for (String value : values) {
                cases++;
                for (Map.Entry<Flaw, String> e : check(key, value).entrySet()) {
                    List<String> examples = found.computeIfAbsent(key, x -> new TreeMap<>())
                            .computeIfAbsent(e.getKey(), x -> new ArrayList<>());
                    if (examples.size() < 3) {
                        examples.add(e.getValue());
                    }
                }
            }
        }
        StringBuilder report = new StringBuilder();
        StringBuilder unexpected = new StringBuilder();
        found.forEach((key, flaws) -> flaws.forEach((flaw, examples) -> {
            String line = "\n  " + key + " " + flaw + ": " + String.join("\n      ", examples);
            report.append(line);
            if (!KNOWN.getOrDefault(key, Set.of()).contains(flaw)) {
                unexpected.append(line);
            }
        }));
        KNOWN.forEach((key, flaws) -> flaws.forEach(flaw -> {
            if (!found.getOrDefault(key, Map.of()).containsKey(flaw)) {
                report.append("\n  (fixed? ").append(key).append(' ').append(flaw).append(" no longer happens: drop it from KNOWN)");
            }
        }));
        System.out.println("[absurd-config] " + Settings.ALL.size() + " keys, " + cases + " values; flaws found (findings):" + report);
        if (unexpected.length() > 0) {
            fail("configuration flaws not in KNOWN:" + unexpected);
        }
    }

    /** Loads the base configuration with {@code key = value}; returns the flaws, each with an example. */
    static Map<Flaw, String> check(String key, String value) {
        Map<Flaw, String> flaws = new java.util.EnumMap<>(Flaw.class);
        String shownValue = shorten(value);
        Map<String, String> m = base(key);
        m.put(key, value);
        try {
            OpenChecks.check(TollgateConfig.load(ConfigLookup.of(ConfigSources.of(SOURCE, m)), null));
            if (!legitimatelyAccepted(key, value)) {
                flaws.put(Flaw.ACCEPTED, "'" + shownValue + "' loads");
            }
            return flaws;
        } catch (ConfigException e) {
            List<String> mine = new ArrayList<>();
            for (String p : e.problems()) {
                if (p.startsWith(ConfigMessages.BAD_VALUE + ": " + key + " = ") || p.startsWith(ConfigMessages.MISSING_VALUE + ": " + key + " ")) {
                    mine.add(p);
                }
            }
            if (mine.isEmpty()) {
                if (!legitimatelyAccepted(key, value)) {
                    flaws.put(Flaw.KEY_NOT_NAMED, "'" + shownValue + "' -> " + shorten(e.getMessage()));
                }
                return flaws;
            }
            String trimmed = value.trim();
            boolean secret = key.equals(Settings.REDIS_PASSWORD.name()) || key.equals(Settings.REDIS_SENTINEL_PASSWORD.name())
                    || key.equals(Settings.REDIS_TLS_TRUSTSTORE_PASSWORD.name()) || key.equals(Settings.REDIS_TLS_KEYSTORE_PASSWORD.name());
            String expectedValue = secret ? "'****'" // a password is never shown
                    : "'" + ConfigMessages.printable(key.equals(Settings.REDIS_URI.name()) ? RedisUris.maskPassword(trimmed) : trimmed) + "'";
            for (String p : mine) {
                if (trimmed.isEmpty() && p.startsWith(ConfigMessages.MISSING_VALUE)) {
                    continue; // blank is unset, and a required key that is unset is reported as missing: right
                }
                String example = "'" + shownValue + "' -> " + shorten(p);
                if (!p.contains(expectedValue)) {
                    flaws.putIfAbsent(Flaw.VALUE_NOT_SHOWN, example);
                }
                if (!p.contains("(from " + SOURCE + ")")) {
                    flaws.putIfAbsent(Flaw.SOURCE_NOT_SHOWN, example);
                }
                if (!p.contains(". Accepted: ")) {
                    flaws.putIfAbsent(Flaw.ACCEPTED_NOT_SHOWN, example);
                }
                if (p.length() > MAX_PROBLEM_CHARS) {
                    flaws.putIfAbsent(Flaw.UNBOUNDED, "'" + shownValue + "' -> a problem of " + p.length() + " characters");
                }
                if (p.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                    flaws.putIfAbsent(Flaw.CONTROL_CHARACTERS, example);
                }
            }
            if (e.problems().size() > mine.size()) {
                List<String> others = new ArrayList<>(e.problems());
                others.removeAll(mine);
                flaws.putIfAbsent(Flaw.CASCADE, "'" + shownValue + "' also blames: " + shorten(String.join(" | ", others)));
            }
            if ((key.equals(Settings.REDIS_URI.name()) && e.getMessage().contains(SECRET))
                    || (secret && trimmed.length() > 4 && e.getMessage().contains(trimmed))) {
                flaws.putIfAbsent(Flaw.PASSWORD_SHOWN, "'" + shownValue + "' -> " + shorten(e.getMessage()));
            }
            return flaws;
        } catch (RuntimeException e) {
            flaws.put(Flaw.WRONG_EXCEPTION, "'" + shownValue + "' -> " + e);
            return flaws;
        }
    }

    /** Printable and short, for the report. */
    static String shorten(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < 160; i++) {
            char c = s.charAt(i);
            sb.append(c == '\n' ? "\\n" : c == '\r' ? "\\r" : c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
        }
        return s.length() > 160 ? sb + "...(" + s.length() + " chars)" : sb.toString();
    }

    @Test
    void theFlawsOfTheReportAreRecognised() {
        // the checker itself: a clean refusal has no flaw, a value that loads is flagged unless
        // it is one the key legitimately accepts
        assertEquals(Map.of(), check(Settings.REDIS_POOL_SIZE.name(), "-1"));
        assertEquals(EnumSet.of(Flaw.ACCEPTED), check(Settings.REDIS_POOL_SIZE.name(), "7").keySet());
        assertEquals(Map.of(), check(Settings.REDIS_KEY_PREFIX.name(), "rl:"));
        assertEquals(Map.of(), check(Settings.REDIS_POOL_SIZE.name(), " \t "), "blank is unset");
    }
}
