package dev.tollgate.jaxrs;

import dev.tollgate.HttpAnswer;
import dev.tollgate.cdi.RateLimitExceededException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Turns a refusal of a CDI {@link dev.tollgate.cdi.RateLimited} method, called from a resource,
 * into exactly the answer the Tollgate filters give: the status (429, a policy's own, or 503),
 * {@code Retry-After}, the {@code RateLimit} fields and the problem body, all from the exception's
 * {@link RateLimitExceededException#answer()}. Class-path scanning finds it ({@code @Provider}), or
 * list it in {@code Application.getClasses()}. Stateless; thread-safe.
 */
@Provider
public class RateLimitExceededMapper implements ExceptionMapper<RateLimitExceededException> {

    @Override
    public Response toResponse(RateLimitExceededException exception) {
        HttpAnswer answer = exception.answer();
        Response.ResponseBuilder refusal = Response.status(answer.status() == 0 ? 429 : answer.status());
        if (answer.body() != null) {
            refusal.type(answer.contentType() + ";charset=UTF-8").entity(answer.body());
        }
        answer.headers().forEach(h -> refusal.header(h.name(), h.value()));
        return refusal.build();
    }
}
