package dev.tollgate.examples.jaxrs;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Not limited itself: the service it calls is, per tenant, whichever client asks. */
@Path("/reports")
@RequestScoped
public class ReportResource {

    @Inject
    ReportService reports;

    @GET
    @Path("/{tenant}")
    @Produces(MediaType.TEXT_PLAIN)
    public String export(@PathParam("tenant") String tenant) {
        return reports.export(tenant);
    }
}
