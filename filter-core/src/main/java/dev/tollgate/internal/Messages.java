package dev.tollgate.internal;

import dev.tollgate.config.ConfigKeys;
import dev.tollgate.config.ConfigValue;
import java.util.List;

/**
 * Every message an operator may read, each with a stable id to search logs for, and beside each id
 * the text it starts: the one answer to "where is the text of TOLLGATE-0xx?". Call sites pass the
 * facts; the words are here. The ids are part of the contract: kept, never reused for another
 * meaning. The README lists them. Stateless; thread-safe.
 */
public final class Messages {

    private Messages() {
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
                + ConfigKeys.environmentName(key) + "). Expected e.g. " + example;
    }

    /** {@code @RateLimited} names a policy that is not configured. */
    public static final String UNKNOWN_POLICY = "TOLLGATE-003";

    /** At a request: {@code known} are the policies configured. */
    public static String unknownPolicy(String where, String policy, List<String> known) {
        return UNKNOWN_POLICY + ": " + where + " names the policy '" + policy + "', which is not configured."
                + " Configured policies: " + known + ". Declare it in tollgate.policies and set tollgate.policy."
                + policy + ".limits";
    }

    /** At start-up or a reload, among the configuration's problems. */
    public static String undeclaredPolicy(String where, String policy) {
        return UNKNOWN_POLICY + ": " + where + " names the policy '" + policy
                + "', which the configuration does not declare in " + ConfigKeys.POLICIES;
    }

    /** A {@code tollgate.*} key or {@code TOLLGATE_*} variable that is no key: ignored, or refused with {@code tollgate.strict-config}. */
    public static final String UNKNOWN_KEY = "TOLLGATE-004";

    /** @param shown the key and its source, printable; @param hint a key it may mean, or {@code null} */
    public static String unknownKey(String shown, String outcome, String hint) {
        return UNKNOWN_KEY + ": " + shown + " matches no configuration key and is " + outcome
                + (hint == null ? "; the keys are listed in the README's configuration table" : "; did you mean "
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

    /** The configuration in force, at start-up. */
    public static final String STARTED = "TOLLGATE-010";

    /** @param store the store and how it is used; @param description the configuration in force */
    public static String started(String name, boolean enabled, String store, String description) {
        return STARTED + ": Tollgate '" + name + "' " + (enabled ? "on" : "OFF") + ", " + store + ", " + description;
    }

    /** Where metrics go, at start-up. */
    public static final String METRICS = "TOLLGATE-011";

    public static String metricsGoTo(String name, String where) {
        return METRICS + ": metrics go to " + name + ": " + where;
    }

    public static String metricsUnusable(String name) {
        return METRICS + ": " + name + " is present but cannot be used; no metrics go there";
    }

    /** The configuration was reloaded and changed. */
    public static final String RELOADED = "TOLLGATE-012";

    public static String reloaded(String name, String description) {
        return RELOADED + ": the configuration of '" + name + "' changed and is in force: " + description;
    }

    public static String reloadedButAtStart(String name, String what) {
        return RELOADED + ": " + what + " of '" + name + "' changed; they take effect at the next start, the rest now";
    }

    /** A reload found a bad value; the configuration in force stays. */
    public static final String RELOAD_REFUSED = "TOLLGATE-013";

    public static String reloadRefused(String name, String because) {
        return RELOAD_REFUSED + ": the configuration of '" + name + "' did not change, because: " + because;
    }

    /** Redis did not answer at start-up; the failure mode applies until it does. */
    public static final String REDIS_NOT_READY = "TOLLGATE-020";

    public static String redisNotReady(String target, Throwable cause) {
        return REDIS_NOT_READY + ": " + target + " does not answer (" + cause + "); the failure mode applies until it does";
    }

    /** Redis stopped answering; the failure mode applies (logged once per outage). */
    public static final String REDIS_DOWN = "TOLLGATE-021";

    public static String redisDown(String target, int failures, Throwable last, long probeMillis) {
        return REDIS_DOWN + ": " + target + " failed " + failures
                + " times in a row (last: " + last + "); Tollgate stops calling it and applies the failure"
                + " mode, probing it every " + probeMillis + " ms";
    }

    /** Redis answers again (logged once per recovery). */
    public static final String REDIS_UP = "TOLLGATE-022";

    public static String redisUp(String target, long downMillis) {
        return REDIS_UP + ": " + target + " answers again after " + downMillis + " ms; decisions are shared again";
    }

    /** The Redis server is older than the scripts need; the failure mode applies until it is upgraded. */
    public static final String REDIS_TOO_OLD = "TOLLGATE-023";

    public static String redisTooOld(String where, String found, String minimum, String why) {
        return REDIS_TOO_OLD + ": " + where + " runs Redis " + printable(found, 40) + "; Tollgate needs "
                + minimum + " or later (" + why + "); the failure mode applies until it is upgraded";
    }

    /** Requests decided without Redis because this node's pool had no connection free in time (at most once a minute). */
    public static final String REDIS_BUSY = "TOLLGATE-024";

    public static String redisBusy(String target, long requests, int poolSize, long timeoutMillis) {
        return REDIS_BUSY + ": " + requests + (requests == 1 ? " request was" : " requests were")
                + " decided without " + target + " since the last report, because none of this node's " + poolSize
                + " connections was free within the call's budget (" + timeoutMillis + " ms): each followed its"
                + " policy's failure mode. This node asks more at once than its pool serves; raise"
                + " tollgate.redis.pool-size or tollgate.redis.timeout (reported at most once a minute)";
    }

    /** A shadow policy would have refused a client (the first refusal of that client in a window). */
    public static final String SHADOW_DENIED = "TOLLGATE-030";
    /** A policy refused a client (the first refusal of that client in a window). */
    public static final String DENIED = "TOLLGATE-031";

    /** {@link #SHADOW_DENIED} or {@link #DENIED}; @param store the store that decided, e.g. "redis" */
    public static String denied(boolean shadow, String policy, String client, long retryAfterSeconds, String store) {
        return (shadow ? SHADOW_DENIED : DENIED) + ": policy '" + policy + "' " + (shadow ? "would refuse" : "refuses")
                + " client " + client + " for " + retryAfterSeconds + " s (decided by " + store
                + " store); further refusals of this client in that time are not logged";
    }

    /** An unexpected error inside Tollgate; the request went through unlimited. */
    public static final String INTERNAL_ERROR = "TOLLGATE-090";

    /** @param what what happened and what the request gets */
    public static String internalError(String what) {
        return INTERNAL_ERROR + ": " + what;
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
