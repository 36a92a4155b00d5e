package dev.tollgate.jaxrs;

import dev.tollgate.HttpAnswer;
import dev.tollgate.Permit;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.util.List;

/**
 * Adds the rate limit headers of an allowed request to its response, and gives back its
 * concurrency slots. JAX-RS runs response filters for every response it builds: a resource's,
 * one an exception mapper made from an exception (a {@code WebApplicationException} included), and
 * one a request filter aborted with; Jersey 3.1 also for the 500 of an exception no mapper handles
 * ({@code ConcurrencyIT}). Where an exception skips the response filters (an async resource resumed
 * with an exception no mapper handles), {@link SlotReleaseListener} gives the slots back when the
 * servlet request ends.
 */
final class TollgateResponseFilter implements ContainerResponseFilter {

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        releaseSlots(request);
        Object headers = request.getProperty(TollgateRequestFilter.HEADERS);
        if (headers instanceof List<?> list) {
            for (Object o : list) {
                HttpAnswer.Header h = (HttpAnswer.Header) o;
                response.getHeaders().add(h.name(), h.value());
            }
        }
    }

    /** Gives back the slots the request filters took (each permit once, whoever calls first). */
    static void releaseSlots(ContainerRequestContext request) {
        release(request.getProperty(TollgateRequestFilter.PERMITS));
    }

    /** Releases each permit of the request property {@link TollgateRequestFilter#PERMITS}, if it holds any. */
    static void release(Object permits) {
        if (permits instanceof List<?> list) {
            for (Object p : list) {
                if (p instanceof Permit permit) {
                    permit.release();
                }
            }
        }
    }
}
