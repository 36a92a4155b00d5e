package dev.tollgate.config.text;

import dev.tollgate.config.Settings;
import dev.tollgate.config.ConfigValue;
import java.util.List;

/**
 * The messages of a configuration's problems, with their stable ids: the configuration owns them
 * (it reads the values), and {@code internal.Messages}, the catalogue of every message, quotes the
 * ids. Also the engine reports through them a value it finds bad when it opens (a TLS store that
 * cannot be read, compact key tags that collide). Not an API: used by Tollgate's own packages.
 * Stateless; thread-safe.
 */
public final class ConfigMessages {

    private ConfigMessages() {
    }

    /** A configuration value is not acceptable. */
    public static final String BAD_VALUE = "TOLLGATE-001";

    public static String badValue(ConfigValue v, String reason, String accepted) {
        // The reason may quote the value again: it is cleaned and clipped too, so no value can
        // forge log lines or make a message unbounded.
        return BAD_VALUE + ": " + v.key() + " = '" + printable(v.value()) + "' (from " + v.source() + ") is not valid: "
                + printable(reason, 400) + (accepted == null ? "" : ". Accepted: " + accepted);
    }

    /** A default that does not fit with the values set beside it. */
    public static String badDefault(String key, String reason, String accepted) {
        return BAD_VALUE + ": " + key + " (default): " + reason + ". Accepted: " + accepted;
    }

    /** A problem of several values together, or of the class path: {@code what} names them. */
    public static String bad(String what) {
        return BAD_VALUE + ": " + what;
    }

    /** A required configuration value is missing. */
    public static final String MISSING_VALUE = "TOLLGATE-002";

    public static String missing(String key, String example) {
        return MISSING_VALUE + ": " + key + " is not set (nor the environment variable "
                + Settings.environmentName(key) + "). Expected e.g. " + example;
    }

    /** A {@code tollgate.*} key or {@code TOLLGATE_*} variable that is no key: ignored, or refused with {@code tollgate.strict-config}. */
    public static final String UNKNOWN_KEY = "TOLLGATE-004";

    /** @param shown the key and its source, printable; @param hint a key it may mean, or {@code null} */
    public static String unknownKey(String shown, String outcome, String hint) {
        return UNKNOWN_KEY + ": " + shown + " matches no configuration key and is " + outcome
                + (hint == null ? "; the keys are listed in docs/reference/configuration.md" : "; did you mean "
                + hint + "?");
    }

    /** A key of a policy or plan that is not declared: ignored, or refused with {@code tollgate.strict-config}. */
    public static final String UNDECLARED_KEY = "TOLLGATE-005";

    /**
     * @param what  "policy" or "plan"; @param owner its name; @param list the key that declares them
     * @param hint  a key it may mean, or {@code null}
     */
    public static String undeclaredKey(String shown, String what, String owner, String list, List<String> declared,
                                       String outcome, String hint) {
        return UNDECLARED_KEY + ": " + shown + " is a key of " + what + " '"
                + printable(owner, 64) + "', which " + list + " does not declare ("
                + (declared.isEmpty() ? "it declares none" : "it declares " + String.join(", ", declared))
                + "), so it is " + outcome + "; declare it" + (hint == null ? "" : ", or did you mean " + hint + "?");
    }

    /** A value as it may appear in a log line: no control characters, at most 200 characters. */
    public static String printable(String s) {
        return printable(s, 200);
    }

    /** Text as it may appear in a log line: no control characters, at most {@code max} characters. */
    public static String printable(String s, int max) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder(Math.min(s.length(), max));
        for (int i = 0; i < s.length() && sb.length() < max; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029 ? '?' : c);
        }
        if (s.length() > max) {
            sb.append("...");
        }
        return sb.toString();
    }
}
