package dev.tollgate.jaxrs;

import dev.tollgate.HttpAnswer;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.util.List;

/** Adds the rate limit headers of an allowed request to its response. */
final class TollgateResponseFilter implements ContainerResponseFilter {

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Object headers = request.getProperty(TollgateRequestFilter.HEADERS);
        if (headers instanceof List<?> list) {
            for (Object o : list) {
                HttpAnswer.Header h = (HttpAnswer.Header) o;
                response.getHeaders().add(h.name(), h.value());
            }
        }
    }
}
