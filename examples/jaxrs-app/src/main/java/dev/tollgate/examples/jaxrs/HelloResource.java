package dev.tollgate.examples.jaxrs;

import dev.tollgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

@Path("/hello")
public class HelloResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("default")
    public String hello() {
        return "hello";
    }
}
