package dev.tollgate.examples.jaxrs;

import dev.tollgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Keyed by address and route: /users/1 and /users/2 share the bucket of /users/{id}. */
@Path("/users")
public class UserResource {

    @GET
    @Path("/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited({"default", "per-route"})
    public String user(@PathParam("id") String id) {
        return "user " + id;
    }
}
