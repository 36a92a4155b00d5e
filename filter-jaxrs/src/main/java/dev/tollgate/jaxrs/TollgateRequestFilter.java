package dev.tollgate.jaxrs;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.Permit;
import dev.tollgate.Policy;
import dev.tollgate.adapter.Integration;
import dev.tollgate.RateLimiter;
import dev.tollgate.config.TollgateConfig;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Checks one phase of a resource method's policies. {@link TollgateFeature} registers one
 * instance of each subclass per resource method: {@link BeforeAuthentication} runs before JAX-RS
 * authentication filters, {@link AfterAuthentication} after them. Which policies each decides is
 * read per request from the configuration in force: the first phase finds the request's policies
 * (named by {@code @RateLimited}, or in global mode those whose {@code match} covers it), decides
 * those whose key does not need the principal, and leaves the others to the second phase in a
 * request property. So a reload that changes a policy's key moves it to the other phase at the
 * next request, and each policy is decided once per request, even when a reload comes between
 * the phases.
 */
abstract class TollgateRequestFilter implements ContainerRequestFilter {

    /** The request property holding the headers the response filter adds. */
    static final String HEADERS = "dev.tollgate.headers";
    /** The request property holding the concurrency slots {@link TollgateResponseFilter} gives back. */
    static final String PERMITS = "dev.tollgate.permits";
    /** The request property holding the policies the first phase leaves to the second. */
    static final String AFTER_AUTHENTICATION = "dev.tollgate.after-authentication";

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    final RateLimiter limiter;
    private final String route;
    private final long cost;

    /** @param cost the cost {@code @RateLimited} sets, or 0 for the policies' own */
    TollgateRequestFilter(RateLimiter limiter, String route, long cost) {
        this.limiter = limiter;
        this.route = route;
        this.cost = cost;
    }

    /** The policies this phase decides for the request (it may leave some to a later phase). */
    abstract List<Policy> inThisPhase(ContainerRequestContext request, JaxrsRequestView view);

    @Override
    public final void filter(ContainerRequestContext request) {
        HttpAnswer answer;
        try {
            JaxrsRequestView view = new JaxrsRequestView(request, route);
            List<Policy> policies = inThisPhase(request, view);
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

    /** Keeps the slots of this phase for {@link TollgateResponseFilter}, which runs also when a later phase aborts. */
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

    /**
     * Runs before JAX-RS authentication filters, so it also counts requests they would reject; finds
     * the request's policies and leaves those that need the principal to {@link AfterAuthentication}.
     */
    static final class BeforeAuthentication extends TollgateRequestFilter {
        private final List<String> named;

        /**
         * @param named the policies of {@code @RateLimited}, or {@code null} to apply the policies
         *              whose {@code match} covers the request in global mode (a policy that code of
         *              the application names applies by path only with a {@code match} of its own,
         *              {@link RateLimiter#matching})
         */
        BeforeAuthentication(RateLimiter limiter, List<String> named, String route, long cost) {
            super(limiter, route, cost);
            this.named = named;
        }

        @Override
        List<Policy> inThisPhase(ContainerRequestContext request, JaxrsRequestView view) {
            TollgateConfig config = limiter.config();
            if (!config.enabled()) {
                return List.of();
            }
            List<Policy> now = new ArrayList<>(2);
            List<Policy> later = new ArrayList<>(0);
            for (Policy p : policies(config, view)) {
                (TollgateFeature.afterAuthentication(p, config.identity().plans()) ? later : now).add(p);
            }
            if (!later.isEmpty()) {
                request.setProperty(AFTER_AUTHENTICATION, later);
            }
            return now;
        }

        private List<Policy> policies(TollgateConfig config, JaxrsRequestView view) {
            if (named != null) {
                List<Policy> out = new ArrayList<>(named.size());
                for (String name : named) {
                    // a reload may not remove it (RateLimiter.requirePolicy)
                    config.policy(name).ifPresent(out::add);
                }
                return out;
            }
            if (!config.http().jaxrsGlobal()) {
                return List.of();
            }
            return limiter.matching(view);
        }
    }

    /**
     * Runs after JAX-RS authentication filters, before authorization, so it sees the principal;
     * decides what {@link BeforeAuthentication} left to it for this request.
     */
    static final class AfterAuthentication extends TollgateRequestFilter {
        AfterAuthentication(RateLimiter limiter, String route, long cost) {
            super(limiter, route, cost);
        }

        @Override
        List<Policy> inThisPhase(ContainerRequestContext request, JaxrsRequestView view) {
            Object later = request.getProperty(AFTER_AUTHENTICATION);
            if (!(later instanceof List<?> list)) {
                return List.of();
            }
            request.removeProperty(AFTER_AUTHENTICATION);
            List<Policy> out = new ArrayList<>(list.size());
            for (Object p : list) {
                out.add((Policy) p);
            }
            return out;
        }
    }
}
