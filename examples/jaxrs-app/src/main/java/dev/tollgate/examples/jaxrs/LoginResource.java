package dev.tollgate.examples.jaxrs;

import dev.tollgate.jaxrs.RateLimited;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** A login endpoint: five attempts a minute per address, whatever their outcome. */
@Path("/login")
public class LoginResource {

    @POST
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("login")
    public Response login(@FormParam("user") String user, @FormParam("password") String password) {
        if ("demo".equals(user) && "demo".equals(password)) {
            return Response.ok("welcome").build();
        }
        return Response.status(Response.Status.UNAUTHORIZED).entity("no").build();
    }
}
