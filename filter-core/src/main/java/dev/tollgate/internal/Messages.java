package dev.tollgate.internal;

import dev.tollgate.config.Settings;
import dev.tollgate.config.text.ConfigMessages;
import java.util.List;

/**
 * Every message an operator may read, each with a stable id to search logs for, and beside each id
 * the text it starts: the one answer to "where is the text of TOLLGATE-0xx?". Call sites pass the
 * facts; the words are here, or for the problems of a configuration ({@code TOLLGATE-001},
 * {@code -002}, {@code -004}, {@code -005}) in {@link ConfigMessages}, which the configuration
 * owns and this catalogue quotes (internal to config, the allowed direction). The ids are part of the contract: kept, never reused for another
 * meaning. {@link #CATALOG} says for each id what it means and what to do, and
 * docs/reference/messages.md is generated from it. Stateless; thread-safe.
 */
public final class Messages {

    private Messages() {
    }

    /** {@code @RateLimited} or {@code Limiter.acquire} names a policy that is not configured. */
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
                + "', which the configuration does not declare in " + Settings.POLICIES.name();
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

    /** No Redis is configured: each node keeps its own buckets, so limits are per node (at start-up). */
    public static final String PER_NODE = "TOLLGATE-014";

    public static String perNode(String name) {
        return PER_NODE + ": Tollgate '" + name + "' keeps its buckets in this node's memory because no Redis is"
                + " configured: limits are per node, so behind a load balancer with N nodes a client gets N times each"
                + " limit. To share them, set TOLLGATE_REDIS_URI (" + Settings.REDIS_URI.name() + ", or "
                + Settings.REDIS_CLUSTER.name() + " or " + Settings.REDIS_SENTINEL_MASTER.name() + "); with "
                + Settings.STRICT_CONFIG.name() + "=true a mistyped name stops the start instead of being ignored";
    }

    /** Two configurations with different limits for one policy write one namespace (at start-up or a check). */
    public static final String NAMESPACE_SHARED = "TOLLGATE-015";

    /** Names the policy and the namespace, never a client. */
    public static String namespaceShared(String name, String namespace, String policy) {
        return NAMESPACE_SHARED + ": Tollgate '" + name + "': another configuration with other limits for policy '"
                + policy + "' writes the same buckets, in namespace '" + namespace + "': each counts every request"
                + " of both and admits by its own limits. If two applications were given this namespace by mistake,"
                + " set " + Settings.NAMESPACE.name() + " apart in one of them (or remove it: each then has its own);"
                + " during a deploy that changes this policy's limits this is expected, and stops with the last node"
                + " of the old configuration. Said once";
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

    /** An operator reset a client's buckets under a policy (JMX or the command-line tool). */
    public static final String CLIENT_RESET = "TOLLGATE-040";

    /** @param client by fingerprint only; @param who the JMX principal, {@code jmx}, or the tool's OS user */
    public static String clientReset(String policy, String client, long deleted, int keys, String who) {
        return CLIENT_RESET + ": the buckets of client " + client + " under policy '" + policy + "' were reset by " + who
                + " (" + deleted + " of " + keys + " keys held something and were deleted)";
    }

    /** An unexpected error inside Tollgate; the request went through unlimited. */
    public static final String INTERNAL_ERROR = "TOLLGATE-090";

    /** @param what what happened and what the request gets */
    public static String internalError(String what) {
        return INTERNAL_ERROR + ": " + what;
    }

    /**
     * What an operator reads about one id in docs/reference/messages.md, which is generated from
     * {@link #CATALOG}: the level it is logged at, what it means and what to do. The texts are
     * Markdown, read in that page: an id in backticks becomes a link to its section.
     *
     * @param id      the id, e.g. {@code TOLLGATE-001}
     * @param level   {@code SEVERE}, {@code WARNING} or {@code INFO}, the level it is usually logged at
     * @param meaning what happened, and what Tollgate did about it, other levels included
     * @param action  what the operator should do
     */
    public record Entry(String id, String level, String meaning, String action) {
        public Entry {
            if (!id.matches("TOLLGATE-0[0-9]{2}") || !List.of("SEVERE", "WARNING", "INFO").contains(level)
                    || meaning.isBlank() || action.isBlank()) {
                throw new IllegalArgumentException("a catalog entry needs an id TOLLGATE-0xx, a level SEVERE, WARNING"
                        + " or INFO, a meaning and an action: " + id + ", " + level);
            }
        }
    }

    /** Every id above, once, in the order of its number; {@code MessagesCatalogTest} holds it to the constants. */
    public static final List<Entry> CATALOG = List.of(
            new Entry(ConfigMessages.BAD_VALUE, "SEVERE", "A configuration value is not valid, or values do not fit together (more"
                    + " than one Redis topology, a `@RateLimited` cost above the policy's smallest burst, a TLS file"
                    + " that cannot be read): the application does not start. The line names the key, the value (never"
                    + " a password), where the value came from and what is accepted; every problem is listed at once."
                    + " A key resolver that `META-INF/services` lists but that cannot be loaded is logged with this id as"
                    + " a WARNING, and ignored.",
                    "Set the key the line names, where the line says the value came from (an environment variable, a"
                    + " system property, an init-param, a context-param, the server's configuration), to a value it"
                    + " accepts: the [configuration reference](configuration.md) lists them for each key. In a reload,"
                    + " the same lines come inside `TOLLGATE-013`, and the configuration in force stays."),
            new Entry(ConfigMessages.MISSING_VALUE, "SEVERE", "A required configuration value is missing (a policy's `limits` when it"
                    + " has no `concurrency`, `tollgate.plan.default` when plans are declared): the application does not"
                    + " start.",
                    "Set the key the line names, or the environment variable it names; the line gives an example of a"
                    + " value. When the message also lists a `TOLLGATE-004` name (`TOLLGATE_POLICY_DEFAULT_LIMIT`), that"
                    + " name is usually the value meant: correct it."),
            new Entry(UNKNOWN_POLICY, "SEVERE", "`@RateLimited` (JAX-RS or CDI) names a policy that is not configured:"
                    + " the application does not start; a reload that would leave it unconfigured is refused"
                    + " (`TOLLGATE-013`). The line names the annotated method and lists the policies configured."
                    + " `Limiter.acquire` refuses a policy that is not configured with an `IllegalArgumentException`"
                    + " starting with this id.",
                    "Declare the policy in `tollgate.policies` and give it `tollgate.policy.<name>.limits` (or"
                    + " `concurrency`), or correct the name in the annotation."),
            new Entry(ConfigMessages.UNKNOWN_KEY, "WARNING", "A `tollgate.*` key or `TOLLGATE_*` variable (or a name a typo away from"
                    + " those prefixes, or a case variant such as `Tollgate_Redis_Uri` that the MicroProfile rule does not"
                    + " read) matches no configuration key, and is ignored; the line names the nearest key when one is"
                    + " close. When another problem stops the start, these lines come in its message, after the problems. With"
                    + " `tollgate.strict-config=true` it is SEVERE and the application does not start.",
                    "Correct the name (the suggested key is usually the one meant) or remove it. Set"
                    + " `tollgate.strict-config=true` to make such a name stop the start."),
            new Entry(ConfigMessages.UNDECLARED_KEY, "WARNING", "A key of a policy or plan that `tollgate.policies` or `tollgate.plans`"
                    + " does not declare, and is ignored; the line lists those declared. With"
                    + " `tollgate.strict-config=true` it is SEVERE and the application does not start.",
                    "Add the policy to `tollgate.policies` (or the plan to `tollgate.plans`), or correct its name in"
                    + " the key."),
            new Entry(STARTED, "INFO", "The configuration in force, at start-up: on or `OFF` (`tollgate.enabled`), the"
                    + " store (in-memory, or the Redis topology with its timeout and failure mode; passwords masked as"
                    + " `user:****@`), the key prefix and the namespace with where it came from (`tollgate.namespace`,"
                    + " the application's context path, or the default), and each policy with its mode, limits, key, match and every setting that differs"
                    + " from its default.",
                    "Nothing. Check that it names the store, the namespace (nodes of one namespace share buckets, two"
                    + " never do) and the policies meant."),
            new Entry(METRICS, "INFO", "Where metrics go, at start-up: one line for each library that receives them"
                    + " (OpenTelemetry, Micrometer, MicroProfile Metrics), naming the registry. A WARNING when a library"
                    + " is present but cannot be used: no metrics go there.",
                    "Nothing when it names the registry that is scraped. When no line names it, check `tollgate.metrics`"
                    + " and that the library is visible to the application; for the WARNING, read the exception logged"
                    + " with it."),
            new Entry(RELOADED, "INFO", "The configuration was read again (every `tollgate.reload-interval`, or the JMX"
                    + " operation `reload`) and changed; the new one is in force, shown as in `TOLLGATE-010`. A WARNING"
                    + " names the Redis settings and `tollgate.local.max-keys` when they changed: they take effect at the"
                    + " next start, the rest at once.",
                    "Nothing; after the WARNING, restart the application when the new Redis settings or"
                    + " `tollgate.local.max-keys` should apply."),
            new Entry(RELOAD_REFUSED, "SEVERE", "A reload found a bad value, or a configuration that breaks a"
                    + " `@RateLimited` policy or cost: nothing changed, the configuration in force stays. The line quotes"
                    + " each problem with its own id.",
                    "Correct the values as the quoted `TOLLGATE-001` to `TOLLGATE-003` lines say; the next reload"
                    + " applies them."),
            new Entry(PER_NODE, "WARNING", "At start-up, after `TOLLGATE-010`: no Redis is configured (neither"
                    + " `tollgate.redis.uri`, `tollgate.redis.cluster` nor `tollgate.redis.sentinel.master`), so Tollgate"
                    + " keeps its buckets in this node's memory and each node counts on its own: behind a load balancer"
                    + " with N nodes a client gets N times each limit. Right for an application that runs on one node;"
                    + " not logged when `tollgate.enabled=false`.",
                    "On one node, nothing. On several, set `TOLLGATE_REDIS_URI` (or the Cluster or Sentinel keys) so"
                    + " that every node shares the buckets; if it is set, look for a `TOLLGATE-004` line: a mistyped"
                    + " name (`TOLLGATE_REDIS_URL`) is ignored. Set `tollgate.strict-config=true` to make such a name"
                    + " stop the start."),
            new Entry(NAMESPACE_SHARED, "WARNING", "Two configurations with other limits for one policy write the"
                    + " same buckets: nodes of one namespace share buckets (the namespace is `tollgate.namespace`, else"
                    + " the application's context path, shown in `TOLLGATE-010`). Each node"
                    + " records a digest of each policy's limits in Redis (`<prefix><namespace>:policy:<name>`, kept"
                    + " while a node of that configuration runs and for 3 minutes after); a node whose limits differ"
                    + " from the recorded ones logs this once per policy, at start-up or at the check after a reload"
                    + " (every minute while it decides): two configurations write the same buckets, each admitting by"
                    + " its own limits, so a client gets at most the more generous allowance plus a burst of the"
                    + " other. The line names the policy and the namespace, never a client.",
                    "If two applications share the namespace by mistake (the same `tollgate.namespace`, or the same"
                    + " display name at the root path), give one of them its own `tollgate.namespace`. During a rolling"
                    + " deploy or a reload that changes the policy's limits, nothing: the record of the old limits"
                    + " lapses 3 minutes after its last node stops, and no node says it again."),
            new Entry(REDIS_NOT_READY, "WARNING", "Redis did not answer at start-up; the line names the server and the"
                    + " cause. The application starts anyway: each policy's failure mode applies until Redis answers,"
                    + " and Redis decides again at the first probe after it does, without a restart.",
                    "Check the Redis address, credentials and network. With TLS the cause says which check failed: a"
                    + " certificate that is not trusted (set `tollgate.redis.tls.truststore`), one that does not name the"
                    + " host (connect by a name it lists, or set `tollgate.redis.tls.verify-hostname=false`), or a server"
                    + " that asks for a client certificate (set `tollgate.redis.tls.keystore`). The health check's last"
                    + " failure says the same."),
            new Entry(REDIS_DOWN, "WARNING", "The circuit opened: Redis failed `tollgate.redis.circuit.failures` times in"
                    + " a row (the last failure is named). Tollgate stops calling it, each policy's failure mode applies,"
                    + " and one request probes Redis every `tollgate.redis.circuit.open-for`. Logged once per outage.",
                    "Look at Redis: down, paused, failing over, unreachable, or refusing the TLS handshake (see"
                    + " `TOLLGATE-020`). `TOLLGATE-022` follows when it answers again. Frequent short outages under load"
                    + " can mean that `tollgate.redis.timeout` is shorter than Redis takes to answer."),
            new Entry(REDIS_UP, "INFO", "Redis answers again, after an outage of the length the line gives; decisions"
                    + " are shared again. Logged once per recovery.",
                    "Nothing."),
            new Entry(REDIS_TOO_OLD, "SEVERE", "The Redis server is older than the scripts need (the line names the"
                    + " version found, the minimum, 6.0.0, and why): no script is sent to it, and the failure mode applies"
                    + " as if Redis were down. Logged once per version found.",
                    "Upgrade Redis (or the compatible server) to 6.0 or later; the upgrade is picked up at the next"
                    + " probe, without a restart."),
            new Entry(REDIS_BUSY, "WARNING", "Requests were decided by their policy's failure mode because none of this"
                    + " node's pooled Redis connections was free within the call's budget; the line gives the count since"
                    + " the last report, the pool size and the timeout. Logged at the first such request, then at most"
                    + " once a minute while it goes on. The circuit does not count these: Redis itself answers.",
                    "The pool is too small for this node's concurrency: raise `tollgate.redis.pool-size` or"
                    + " `tollgate.redis.timeout`."),
            new Entry(SHADOW_DENIED, "INFO", "A policy in `shadow` mode would have refused a client; the request went"
                    + " through. Logged for the first refusal of that client in a refusal window; the client is named by"
                    + " its key's kind and a fingerprint unless `tollgate.log.client-keys=clear`.",
                    "Nothing: these lines show what `enforce` would refuse; switch the policy's `mode` when they"
                    + " show what is meant."),
            new Entry(DENIED, "INFO", "A policy refused a client (429, or the policy's `refusal-status`). Logged for"
                    + " the first refusal of that client in a refusal window; the client is named by its key's kind and a"
                    + " fingerprint unless `tollgate.log.client-keys=clear`.",
                    "Nothing when the limit is meant. Many refusals of many clients can mean the limit is too low, or"
                    + " that clients share a key: behind a proxy that `tollgate.trusted-proxies` does not list, every"
                    + " client has the proxy's address."),
            new Entry(CLIENT_RESET, "INFO", "An operator reset one client's buckets under one policy (the JMX"
                    + " operation `reset`, or `tollgate-cli.jar reset`): its buckets are full again, its quotas unused,"
                    + " its leases and pause gone. The line names the client by fingerprint and who asked: the JMX"
                    + " principal (`jmx` without one) or the tool's OS user.",
                    "Nothing, if the reset was meant. Otherwise find who asked; the client's next requests count from"
                    + " a full bucket."),
            new Entry(INTERNAL_ERROR, "SEVERE", "An unexpected error inside Tollgate, or a request that reached a filter"
                    + " that did not start: the request (or outbound call) went through unlimited, and the line says so."
                    + " A WARNING when a policy's key resolver failed: the peer's address was used as the client's key.",
                    "Read the stack trace logged with it. For a filter that did not start, the cause was logged at"
                    + " start-up (`TOLLGATE-001` to `TOLLGATE-003`); for a key resolver, fix the resolver. Otherwise"
                    + " report it, with the stack trace."));

    /** A value as it may appear in a log line: {@link ConfigMessages#printable(String)}. */
    public static String printable(String s) {
        return ConfigMessages.printable(s);
    }

    /** Text as it may appear in a log line: {@link ConfigMessages#printable(String, int)}. */
    public static String printable(String s, int max) {
        return ConfigMessages.printable(s, max);
    }
}
