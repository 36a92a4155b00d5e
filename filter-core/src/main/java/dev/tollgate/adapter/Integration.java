package dev.tollgate.adapter;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.PolicyResult;
import dev.tollgate.RateLimiter;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.engine.NamedPolicies;
import dev.tollgate.internal.http.HttpContract;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What an integration (the servlet filter, the JAX-RS feature, one of your own) needs besides
 * the limiter: the messages it logs, each with its id, and the answer it gives while no limiter
 * runs. So every integration says the same things the same way. Stateless and thread-safe.
 */
public final class Integration {

    /**
     * The request attribute (a JAX-RS request property, which a servlet-based runtime keeps as a
     * servlet request attribute) naming the policies an HTTP filter decided for the request, a
     * {@code Set<String>}: the CDI interceptor does not count a request-keyed call under them again.
     */
    public static final String DECIDED_ATTRIBUTE = "dev.tollgate.decided";

    /**
     * The last one-policy value of {@link #decided}, given again while requests are decided under
     * that policy alone. Read and written without a lock: an immutable set, published whole; a
     * thread that misses another's write makes its own.
     */
    private static Set<String> lastDecided = Set.of();

    private Integration() {
    }

    /**
     * What an HTTP filter puts under {@link #DECIDED_ATTRIBUTE} after a decision: the policies
     * named there already ({@code earlier}, the attribute's value or {@code null}) and the
     * decision's. Never throws.
     */
    public static Set<String> decided(Object earlier, Decision decision) {
        List<PolicyResult> results = decision.results();
        if (earlier == null && results.size() <= 1) {
            // the common case, once per request: one policy and nothing named before it, no set to build and copy
            if (results.isEmpty()) {
                return Set.of();
            }
            String name = results.get(0).policy().name();
            Set<String> last = lastDecided;
            if (last.contains(name)) {
                return last; // immutable: the same value serves every request decided under this policy alone
            }
            last = Set.of(name);
            lastDecided = last;
            return last;
        }
        Set<String> out = new LinkedHashSet<>();
        if (earlier instanceof Set<?> names) {
            for (Object n : names) {
                if (n instanceof String s) {
                    out.add(s);
                }
            }
        }
        for (PolicyResult r : results) {
            out.add(r.policy().name());
        }
        return Set.copyOf(out);
    }

    /**
     * Declares that code of an application names {@code policies} where it limits
     * ({@code @RateLimited} on a CDI bean method or type, on a JAX-RS resource). A policy so named
     * that has no {@code match} of its own then applies only where code names it: the limiters of
     * that application ({@link RateLimiter#create(dev.tollgate.config.TollgateConfig, String,
     * java.util.function.Supplier, ClassLoader)} with its class loader or a descendant of it) leave
     * it out of the policies they apply by {@code match} (a servlet filter, the JAX-RS feature's
     * global mode). With a {@code match} of its own it applies there too. Declare at deployment,
     * before the first request, and withdraw when the code that names them stops. Never throws.
     *
     * @param application the class loader of the code that names them (the application's)
     * @return withdraws this declaration (once; later runs do nothing)
     */
    public static Runnable declareNamedInCode(ClassLoader application, Collection<String> policies) {
        return NamedPolicies.declare(application, policies);
    }

    /**
     * The policies that code names, as the limiters of the application of this class loader see
     * them: declared under it or under an ancestor ({@link #declareNamedInCode}).
     */
    public static Set<String> namedInCode(ClassLoader application) {
        return NamedPolicies.of(application).names();
    }

    /**
     * The message, id {@code TOLLGATE-090} first, for an unexpected error in an integration:
     * {@code what} says what happened and what the request gets.
     */
    public static String internalErrorMessage(String what) {
        return Messages.internalError(what);
    }

    /**
     * The message, id {@code TOLLGATE-003} first, for code outside the configuration ({@code where},
     * e.g. {@code @RateLimited on Api#export}) that names a policy the limiter's configuration in
     * force does not declare; it lists the policies that are declared.
     */
    public static String unknownPolicyMessage(RateLimiter limiter, String where, String policy) {
        List<String> known = new ArrayList<>();
        limiter.config().policies().forEach(p -> known.add(p.name()));
        return Messages.unknownPolicy(where, policy, known);
    }

    /**
     * The answer to a request that reached an integration whose limiter did not start (its start
     * failed, or it was closed): 503 with {@code Retry-After: 1}, never a request let through unlimited.
     */
    public static HttpAnswer notStartedAnswer() {
        return HttpContract.notStarted();
    }
}
