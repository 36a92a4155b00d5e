package dev.tollgate.jaxrs;

import dev.tollgate.HttpAnswer;
import dev.tollgate.Permit;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.util.List;

/**
 * Adds the rate limit headers of an allowed request to its response, and gives back its
 * concurrency slots when the response is done.
 *
 * <p>JAX-RS runs response filters for every response it builds (a resource's, one an exception
 * mapper made, one a request filter aborted with; Jersey 3.1 also for the 500 of an exception no
 * mapper handles, {@code ConcurrencyIT}), but <em>before</em> the entity is written: a
 * {@code StreamingOutput} export, or any large entity, is written after them. So the response
 * filter gives the slots back only for a response without an entity; for one with an entity this
 * class, as the outermost writer interceptor, gives them back when the entity has been written
 * (in a {@code finally}: also when writing fails or the client went away; a {@code HEAD} writes
 * its entity too, to nowhere). Where neither runs (an async resource resumed with an exception
 * no mapper handles, which goes to the servlet container), {@link SlotReleaseListener} gives the
 * slots back when the servlet request ends. Each permit gives its slots back once, whoever calls
 * first.
 */
final class TollgateResponseFilter implements ContainerResponseFilter, WriterInterceptor {

    /**
     * Priority as a writer interceptor: around the others (a lower number is further out; the
     * {@code Priorities} constants start at 1000), so the slots come back after they all wrote.
     */
    static final int AROUND_EVERY_WRITER = 0;

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!response.hasEntity()) {
            releaseSlots(request); // nothing will be written: the response is done
        }
        Object headers = request.getProperty(TollgateRequestFilter.HEADERS);
        if (headers instanceof List<?> list) {
            for (Object o : list) {
                HttpAnswer.Header h = (HttpAnswer.Header) o;
                response.getHeaders().add(h.name(), h.value());
            }
        }
    }

    /** Writes the entity, then gives the slots back, however the writing ended. */
    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        try {
            context.proceed();
        } finally {
            release(context.getProperty(TollgateRequestFilter.PERMITS));
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
