package dev.tollgate.jaxrs.openapi;

import dev.tollgate.jaxrs.RateLimited;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;

/**
 * Resources compiled with {@link RateLimitedIndexer} (this module's tests are): the index in
 * target/test-classes lists them, and {@link RoutesTest} reads it back.
 */
final class IndexedResources {

    private IndexedResources() {
    }

    @ApplicationPath("/v1/*")
    public static class Api extends Application {
    }

    @Path("orders")
    public static class Orders {
        @GET
        @Path("/{id: [0-9]{1,9}}/")
        @RateLimited({"default", "per-route"})
        public String order() {
            return "";
        }

        @POST
        @RateLimited(value = "writes", cost = 2)
        public String create() {
            return "";
        }

        @GET
        public String list() {
            return "";
        }
    }

    @Path("/exports")
    @RateLimited("exports")
    public static class Exports {
        @GET
        public String all() {
            return "";
        }

        @GET
        @Path("latest")
        @RateLimited("latest")
        public String latest() {
            return "";
        }

        /** Not a resource method: no HTTP method. */
        public String helper() {
            return "";
        }
    }

    /** A sub-resource: no {@code @Path} of its own, its locator's path is unknown here. */
    @RateLimited("sub")
    public static class Sub {
        @GET
        public String get() {
            return "";
        }
    }
}
