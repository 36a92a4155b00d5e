package dev.tollgate.examples.jaxrs;

import dev.tollgate.jaxrs.client.TollgateClientFilter;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/**
 * Answers with what the partner API says, called through {@link PartnerClient}: the outbound
 * calls are limited (policy {@code partner}), not the requests to this resource.
 */
@Path("/partner")
@RequestScoped
public class PartnerResource {

    @Inject
    PartnerClient partner;

    @GET
    @Path("/items/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    public Response item(@PathParam("id") String id, @Context UriInfo uri) {
        return partner.item(uri.getBaseUri(), id);
    }

    /** What the outbound filter did so far, e.g. {@code sent=5 waited=0 not-sent=3 refused-by-remote=0 pauses=0}. */
    @GET
    @Path("/calls")
    @Produces(MediaType.TEXT_PLAIN)
    public String calls() {
        TollgateClientFilter.Counts c = partner.counts();
        return "sent=" + c.sent() + " waited=" + c.waited() + " not-sent=" + c.notSent() + " refused-by-remote="
                + c.refusedByRemote() + " pauses=" + c.pauses();
    }
}
