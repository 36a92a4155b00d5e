package dev.tollgate.arquillian;

import dev.tollgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** The tiny JAX-RS resource of a micro-deployment, limited by the policy the deployment's configuration declares. */
@Path("/ping")
public class PingResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited(MicroDeployments.POLICY)
    public String ping() {
        return "pong";
    }
}
