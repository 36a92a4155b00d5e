package dev.tollgate.jaxrs;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.Permit;
import dev.tollgate.Policy;
import dev.tollgate.Integration;
import dev.tollgate.RateLimiter;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Checks one phase of a resource method's policies. {@link TollgateFeature} registers one
 * instance of each subclass per limited resource method: {@link BeforeAuthentication} for policies
 * whose key does not involve the principal, {@link AfterAuthentication} for those that do.
 */
abstract class TollgateRequestFilter implements ContainerRequestFilter {

    /** The request property holding the headers the response filter adds. */
    static final String HEADERS = "dev.tollgate.headers";
    /** The request property holding the concurrency slots the response filter gives back. */
    static final String PERMITS = "dev.tollgate.permits";

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private final RateLimiter limiter;
    private final List<Policy> named;
    private final String route;
    private final boolean afterAuthentication;
    private final long cost;

    /**
     * @param named the policies of {@code @RateLimited} in this phase, or {@code null} to apply the
     *              policies whose {@code match} covers the request (global mode; a policy that code
     *              of the application names applies by path only with a {@code match} of its own,
     *              {@link RateLimiter#matching})
     * @param cost  the cost {@code @RateLimited} sets, or 0 for the policies' own
     */
    TollgateRequestFilter(RateLimiter limiter, List<Policy> named, String route, boolean afterAuthentication, long cost) {
        this.limiter = limiter;
        this.named = named;
        this.route = route;
        this.afterAuthentication = afterAuthentication;
        this.cost = cost;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        HttpAnswer answer;
        try {
            JaxrsRequestView view = new JaxrsRequestView(request, route);
            List<Policy> policies = named != null ? named : inThisPhase(limiter.matching(view));
            if (policies.isEmpty()) {
                return;
            }
            Decision decision = limiter.check(view, policies, cost);
            hold(request, decision.permit());
            // so that the CDI interceptor does not count this request again under these policies
            request.setProperty(Integration.DECIDED_ATTRIBUTE,
                    Integration.decided(request.getProperty(Integration.DECIDED_ATTRIBUTE), decision));
            answer = limiter.answer(decision);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Integration.internalErrorMessage("unexpected error in the Tollgate JAX-RS filter; the request goes through"), e);
            return;
        }
        @SuppressWarnings("unchecked")
        List<HttpAnswer.Header> earlier = (List<HttpAnswer.Header>) request.getProperty(HEADERS);
        if (answer.passes()) {
            if (!answer.headers().isEmpty()) {
                List<HttpAnswer.Header> all = earlier == null ? new ArrayList<>(4) : earlier;
                all.addAll(answer.headers());
                request.setProperty(HEADERS, all);
            }
            return;
        }
        Response.ResponseBuilder refusal = Response.status(answer.status())
                .type(answer.contentType() + ";charset=UTF-8")
                .entity(answer.body());
        if (earlier != null) {
            earlier.forEach(h -> refusal.header(h.name(), h.value()));
            request.removeProperty(HEADERS);
        }
        answer.headers().forEach(h -> refusal.header(h.name(), h.value()));
        request.abortWith(refusal.build());
    }

    /** Keeps the slots of this phase for the response filter, which runs also when a later phase aborts. */
    private static void hold(ContainerRequestContext request, Permit permit) {
        if (!permit.held()) {
            return;
        }
        @SuppressWarnings("unchecked")
        List<Permit> held = (List<Permit>) request.getProperty(PERMITS);
        if (held == null) {
            held = new ArrayList<>(2);
            request.setProperty(PERMITS, held);
        }
        held.add(permit);
    }

    private List<Policy> inThisPhase(List<Policy> matching) {
        List<Policy> out = new ArrayList<>(matching.size());
        for (Policy p : matching) {
            if (TollgateFeature.afterAuthentication(p, limiter.config().plans()) == afterAuthentication) {
                out.add(p);
            }
        }
        return out;
    }

    /** Runs before JAX-RS authentication filters, so it also counts requests they would reject. */
    static final class BeforeAuthentication extends TollgateRequestFilter {
        BeforeAuthentication(RateLimiter limiter, List<Policy> named, String route, long cost) {
            super(limiter, named, route, false, cost);
        }
    }

    /** Runs after JAX-RS authentication filters, before authorization, so it sees the principal. */
    static final class AfterAuthentication extends TollgateRequestFilter {
        AfterAuthentication(RateLimiter limiter, List<Policy> named, String route, long cost) {
            super(limiter, named, route, true, cost);
        }
    }
}
