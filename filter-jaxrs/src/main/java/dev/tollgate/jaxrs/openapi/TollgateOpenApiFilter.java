package dev.tollgate.jaxrs.openapi;

import dev.tollgate.adapter.Integration;
import dev.tollgate.Policy;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.HeaderStyle;
import dev.tollgate.config.TollgateConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * Shows Tollgate's refusal in the application's OpenAPI document (MicroProfile OpenAPI: WildFly,
 * Payara): every operation a policy covers gets a {@code 429} response (or the status the policy's
 * {@code refusal} sets) with its headers ({@code Retry-After}, and {@code RateLimit} and
 * {@code RateLimit-Policy} or the {@code X-RateLimit-*} ones, as {@code tollgate.headers} says)
 * and an {@code application/problem+json} body of the schema {@value #PROBLEM_SCHEMA}. Generated
 * clients then know to back off. Register it in the application's
 * {@code META-INF/microprofile-config.properties}:
 *
 * <pre>{@code mp.openapi.filter=dev.tollgate.jaxrs.openapi.TollgateOpenApiFilter}</pre>
 *
 * <p>The operations a policy covers: the resource methods with {@code @RateLimited} (on the method
 * or its class), and, with {@code tollgate.jaxrs.global=true}, the other operations whose method
 * and path template a policy's {@code match} covers (the template as written, {@code /users/{id}},
 * without the application path; a policy that code names and that has no {@code match} of its own
 * is left out, as at run time). The {@code @RateLimited} methods are found in the index
 * {@link RateLimitedIndexer} writes while the application compiles, since the document is built
 * before the JAX-RS runtime starts. The configuration is read from MicroProfile Config (or system
 * properties and the environment), not from {@code Application.getProperties()}. An operation
 * that already documents that status keeps its own.
 *
 * <p>Never fails the document: what it cannot read (no index, a bad configuration) is logged
 * and leaves the operations as they are. Thread-safe (stateless).
 */
public class TollgateOpenApiFilter implements OASFilter {

    /** The index {@link RateLimitedIndexer} writes, one {@code resource} or {@code application} class a line. */
    public static final String INDEX = OpenApiIndex.INDEX;
    /** The name of the refusal body's schema among the document's components. */
    public static final String PROBLEM_SCHEMA = "TollgateProblem";

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        try {
            document(openAPI);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, "Tollgate: the OpenAPI document could not be given the 429 of limited operations", e);
        }
    }

    private void document(OpenAPI openAPI) {
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return;
        }
        ClassLoader loader = TollgateOpenApiFilter.class.getClassLoader();
        Routes routes;
        try {
            routes = Routes.read(loader);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "Tollgate: " + INDEX + " cannot be read; the OpenAPI document does not show the 429"
                    + " of @RateLimited operations", e);
            routes = new Routes(List.of(), List.of(""));
        }
        TollgateConfig config = null;
        try {
            config = TollgateConfig.load(ConfigLookup.of(ConfigSources.server(loader)), loader);
        } catch (ConfigException e) {
            LOG.warning("Tollgate: the configuration cannot be read for the OpenAPI document; it shows the 429 of"
                    + " @RateLimited operations with the standard headers. " + e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, "Tollgate: the configuration cannot be read for the OpenAPI document; it shows the"
                    + " 429 of @RateLimited operations with the standard headers", e);
        }
        Set<String> named = new TreeSet<>();
        for (Routes.Route r : routes.limited()) {
            named.addAll(r.policies());
        }
        try {
            named.addAll(Integration.namedInCode(loader));
        } catch (RuntimeException | LinkageError e) {
            // the CDI interceptor's names, when it has declared them already: an addition
        }
        boolean documented = false;
        for (Map.Entry<String, PathItem> path : openAPI.getPaths().getPathItems().entrySet()) {
            Map<PathItem.HttpMethod, Operation> operations = path.getValue().getOperations();
            if (operations == null) {
                continue;
            }
            for (Map.Entry<PathItem.HttpMethod, Operation> op : operations.entrySet()) {
                String method = op.getKey().name();
                List<String> policies = routes.limitedAt(method, path.getKey());
                if (policies == null) {
                    policies = byMatch(config, named, method, routes.insideApplication(path.getKey()));
                }
                if (!policies.isEmpty()) {
                    refusals(op.getValue(), policies, config);
                    documented = true;
                }
            }
        }
        if (documented) {
            Components components = openAPI.getComponents();
            if (components == null) {
                components = OASFactory.createComponents();
                openAPI.setComponents(components);
            }
            if (components.getSchemas() == null || !components.getSchemas().containsKey(PROBLEM_SCHEMA)) {
                components.addSchema(PROBLEM_SCHEMA, problemSchema());
            }
        }
    }

    /** With {@code tollgate.jaxrs.global}, the policies whose {@code match} covers the operation, as the filters apply them. */
    static List<String> byMatch(TollgateConfig config, Set<String> named, String method, String path) {
        if (config == null || !config.http().jaxrsGlobal()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Policy p : config.policies()) {
            if ((p.hasOwnMatch() || !named.contains(p.name())) && p.match().matches(method, path)) {
                out.add(p.name());
            }
        }
        return out;
    }

    /** Adds the refusal of each status the policies answer with, unless the operation documents it. */
    private static void refusals(Operation operation, List<String> policies, TollgateConfig config) {
        Set<Integer> statuses = new LinkedHashSet<>();
        for (String name : policies) {
            Policy p = config == null ? null : config.policy(name).orElse(null);
            statuses.add(p == null ? 429 : p.refusal().status());
        }
        APIResponses responses = operation.getResponses();
        if (responses == null) {
            responses = OASFactory.createAPIResponses();
            operation.setResponses(responses);
        }
        HeaderStyle style = config == null ? HeaderStyle.DRAFT : config.http().headers();
        for (int status : statuses) {
            String code = Integer.toString(status);
            if (responses.hasAPIResponse(code)) {
                continue;
            }
            responses.addAPIResponse(code, refusal(status, policies, style));
        }
    }

    private static APIResponse refusal(int status, List<String> policies, HeaderStyle style) {
        APIResponse r = OASFactory.createAPIResponse()
                .description((status == 429 ? "Too Many Requests" : "Refused") + ": a rate limit of "
                        + (policies.size() == 1 ? "policy " : "policies ") + String.join(", ", policies)
                        + " refused the request; retry after the seconds Retry-After gives.")
                .content(OASFactory.createContent().addMediaType("application/problem+json",
                        OASFactory.createMediaType().schema(OASFactory.createSchema()
                                .ref("#/components/schemas/" + PROBLEM_SCHEMA))));
        r.addHeader("Retry-After", header("Seconds until a request could pass.", Schema.SchemaType.INTEGER));
        if (style.draft()) {
            r.addHeader("RateLimit", header("The client's remaining quota under each policy that applied,"
                    + " e.g. \"default\";r=0;t=1 (draft-ietf-httpapi-ratelimit-headers).", Schema.SchemaType.STRING));
            r.addHeader("RateLimit-Policy", header("Each policy's quota and window, e.g. \"default\";q=20;w=2.",
                    Schema.SchemaType.STRING));
        }
        if (style.legacy()) {
            r.addHeader("X-RateLimit-Limit", header("The request quota.", Schema.SchemaType.INTEGER));
            r.addHeader("X-RateLimit-Remaining", header("Requests left in the window.", Schema.SchemaType.INTEGER));
            r.addHeader("X-RateLimit-Reset", header("Seconds until the quota is full again.", Schema.SchemaType.INTEGER));
        }
        return r;
    }

    private static Header header(String description, Schema.SchemaType type) {
        return OASFactory.createHeader().description(description).schema(typed(OASFactory.createSchema(), type));
    }

    /** The refusal's body, as {@code HttpContract} writes it (RFC 9457). */
    static Schema problemSchema() {
        Schema s = typed(OASFactory.createSchema(), Schema.SchemaType.OBJECT)
                .description("A refusal by Tollgate (RFC 9457 problem details).");
        s.addProperty("type", typed(OASFactory.createSchema(), Schema.SchemaType.STRING).description("The problem type, a URI."));
        s.addProperty("title", typed(OASFactory.createSchema(), Schema.SchemaType.STRING));
        s.addProperty("status", typed(OASFactory.createSchema(), Schema.SchemaType.INTEGER));
        s.addProperty("detail", typed(OASFactory.createSchema(), Schema.SchemaType.STRING));
        s.addProperty("violated-policies", typed(OASFactory.createSchema(), Schema.SchemaType.ARRAY)
                .items(typed(OASFactory.createSchema(), Schema.SchemaType.STRING))
                .description("The policies that refused the request."));
        s.addProperty("retry-after", typed(OASFactory.createSchema(), Schema.SchemaType.INTEGER)
                .description("Seconds until a request could pass, as the Retry-After header."));
        return s;
    }

    /**
     * A schema of one type: {@code addType} in MicroProfile OpenAPI 4 (WildFly 31 and later),
     * {@code type} in 3 (Payara 6), whose signature differs.
     */
    static Schema typed(Schema s, Schema.SchemaType type) {
        try {
            return s.addType(type);
        } catch (NoSuchMethodError | AbstractMethodError e) {
            try {
                Schema.class.getMethod("setType", Schema.SchemaType.class).invoke(s, type);
                return s;
            } catch (ReflectiveOperationException | RuntimeException r) {
                return s;
            }
        }
    }
}
