package dev.tollgate.cdi;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.adapter.Integration;
import dev.tollgate.Permit;
import dev.tollgate.Policy;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.internal.identity.KeyedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Decides one call of a {@link RateLimited} method, before it runs: finds the limiter, the HTTP
 * request if any, the key, and asks the limiter. The interceptor's mechanism, apart from CDI so it
 * can be tested alone. Thread-safe.
 */
final class CallLimiter {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private final Limiters limiters;
    private final HttpCall.Source requests;

    CallLimiter(Limiters limiters, HttpCall.Source requests) {
        this.limiters = limiters;
        this.requests = requests;
    }

    /**
     * Decides a call: the slots it holds (to release when the call is over) when it may run.
     *
     * @throws RateLimitExceededException when refused, or when no limiter could start (503);
     *         nothing else: an unexpected error lets the call run, and is logged
     */
    Permit admit(MethodLimit method, Object[] arguments) {
        Decision decision;
        HttpAnswer answer;
        try {
            RateLimiter rl = limiters.forCall(method);
            if (rl == null) {
                throw new RateLimitExceededException(NOT_STARTED, Integration.notStartedAnswer(), method.where());
            }
            HttpCall http = requests.current();
            RequestView view = view(method, arguments, http);
            List<Policy> policies = policies(rl, method, http);
            if (policies.isEmpty()) {
                return Permit.NONE;
            }
            decision = rl.check(view, policies, method.cost());
            if (decision.allowed()) {
                return decision.permit();
            }
            answer = rl.answer(decision);
        } catch (RateLimitExceededException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(Level.SEVERE, Integration.internalErrorMessage("unexpected error in the Tollgate CDI interceptor at "
                    + method.where() + "; the call goes through"), e);
            return Permit.NONE;
        }
        decision.permit().release(); // a refusal holds none; for safety
        throw new RateLimitExceededException(decision, answer, method.where());
    }

    /** What a call is refused with when no limiter could start: as the filters answer then, 503. */
    private static final Decision NOT_STARTED = new Decision(Decision.Verdict.UNAVAILABLE, List.of(), 1_000_000,
            Decision.Source.NONE);

    /**
     * The call as the engine sees it: the HTTP request (for the allow-list and the plan, and the
     * policies' key when no parameter is one), with the key the rules choose.
     */
    static RequestView view(MethodLimit method, Object[] arguments, HttpCall http) {
        if (method.keyed()) {
            return new KeyedRequest(http == null ? null : http.view(), method.argumentKey(arguments));
        }
        if (http == null) {
            return new KeyedRequest(null, method.noRequestKey());
        }
        return http.view();
    }

    /**
     * The method's policies as the limiter defines them now, less those a Tollgate filter decided
     * for the same HTTP request when the call would be keyed by that request too: the same bucket,
     * counted once.
     */
    static List<Policy> policies(RateLimiter rl, MethodLimit method, HttpCall http) {
        List<Policy> out = new ArrayList<>(method.policies().size());
        for (String name : method.policies()) {
            if (http != null && !method.keyed() && http.decided().contains(name)) {
                continue;
            }
            rl.config().policy(name).ifPresent(out::add);
        }
        return out;
    }
}
