package dev.tollgate.examples.jaxrs;

import dev.tollgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * A stand-in for the partner's API, so that the example runs alone: limited as a partner limits
 * an account (here by the caller's address, policy {@code partner-stand-in}), answering
 * {@code 429} with {@code Retry-After} beyond it. Set {@code partner.base-url} to call a real one.
 */
@Path("/partner-stand-in")
public class PartnerStandIn {

    @GET
    @Path("/items/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("partner-stand-in")
    public String item(@PathParam("id") String id) {
        return "item " + id;
    }
}
