package dev.tollgate.arquillian;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Calls the limited bean over HTTP; a refusal reaches the client through {@code RateLimitExceededMapper}. */
@Path("/export/{tenant}")
@RequestScoped
public class ExportResource {

    @Inject
    TenantExports exports;

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String export(@PathParam("tenant") String tenant) {
        return exports.export(tenant);
    }
}
