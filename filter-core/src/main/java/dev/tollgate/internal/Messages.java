package dev.tollgate.internal;

import dev.tollgate.config.ConfigValue;

/**
 * Every message an operator may read, each with a stable id to search logs for. The ids are part
 * of the contract: kept, never reused for another meaning. The README lists them.
 */
public final class Messages {

    private Messages() {
    }

    /** A configuration value is not acceptable. */
    public static final String BAD_VALUE = "TOLLGATE-001";
    /** A required configuration value is missing. */
    public static final String MISSING_VALUE = "TOLLGATE-002";
    /** {@code @RateLimited} names a policy that is not configured. */
    public static final String UNKNOWN_POLICY = "TOLLGATE-003";
    /** The configuration in force, at start-up. */
    public static final String STARTED = "TOLLGATE-010";
    /** Where metrics go, at start-up. */
    public static final String METRICS = "TOLLGATE-011";
    /** The configuration was reloaded and changed. */
    public static final String RELOADED = "TOLLGATE-012";
    /** A reload found a bad value; the configuration in force stays. */
    public static final String RELOAD_REFUSED = "TOLLGATE-013";
    /** Redis did not answer at start-up; the failure mode applies until it does. */
    public static final String REDIS_NOT_READY = "TOLLGATE-020";
    /** Redis stopped answering; the failure mode applies (logged once per outage). */
    public static final String REDIS_DOWN = "TOLLGATE-021";
    /** Redis answers again (logged once per recovery). */
    public static final String REDIS_UP = "TOLLGATE-022";
    /** The Redis server is older than the scripts need; the failure mode applies until it is upgraded. */
    public static final String REDIS_TOO_OLD = "TOLLGATE-023";
    /** A shadow policy would have refused a client (the first refusal of that client in a window). */
    public static final String SHADOW_DENIED = "TOLLGATE-030";
    /** A policy refused a client (the first refusal of that client in a window). */
    public static final String DENIED = "TOLLGATE-031";
    /** An unexpected error inside Tollgate; the request went through unlimited. */
    public static final String INTERNAL_ERROR = "TOLLGATE-090";
    /** A {@code tollgate.*} key or {@code TOLLGATE_*} variable that is no key: ignored, or refused with {@code tollgate.strict-config}. */
    public static final String UNKNOWN_KEY = "TOLLGATE-004";
    /** A key of a policy or plan that is not declared: ignored, or refused with {@code tollgate.strict-config}. */
    public static final String UNDECLARED_KEY = "TOLLGATE-005";

    public static String badValue(ConfigValue v, String reason, String accepted) {
        // The reason may quote the value again: it is cleaned and clipped too, so no value can
        // forge log lines or make a message unbounded.
        return BAD_VALUE + ": " + v.key() + " = '" + printable(v.value()) + "' (from " + v.source() + ") is not valid: "
                + printable(reason, 400) + (accepted == null ? "" : ". Accepted: " + accepted);
    }

    public static String missing(String key, String example) {
        return MISSING_VALUE + ": " + key + " is not set (nor the environment variable "
                + dev.tollgate.config.ConfigKeys.environmentName(key) + "). Expected e.g. " + example;
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
