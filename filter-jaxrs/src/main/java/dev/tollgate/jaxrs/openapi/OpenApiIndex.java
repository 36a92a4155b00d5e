package dev.tollgate.jaxrs.openapi;

/**
 * The index {@link RateLimitedIndexer} writes and {@link TollgateOpenApiFilter} reads: its name and
 * line format. Apart from both, so that the processor, which javac loads in every compile against
 * this jar, never loads a MicroProfile OpenAPI type (an application without it would not compile).
 */
final class OpenApiIndex {

    /** Where the index is, in the application's classes: one {@code resource} or {@code application} class a line. */
    static final String INDEX = "META-INF/tollgate/jaxrs-openapi.idx";
    static final String RATE_LIMITED = "dev.tollgate.jaxrs.RateLimited";
    static final String APPLICATION_PATH = "jakarta.ws.rs.ApplicationPath";
    static final String RESOURCE = "resource";
    static final String APPLICATION = "application";

    private OpenApiIndex() {
    }
}
