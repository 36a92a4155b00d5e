package dev.tollgate.examples.jaxrs;

import dev.tollgate.RateLimiter;
import dev.tollgate.jaxrs.TollgateFeature;
import dev.tollgate.jaxrs.client.RemoteQuotaException;
import dev.tollgate.jaxrs.client.TollgateClientFilter;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The application's client of a partner API: one JAX-RS {@link Client} for the application's
 * life, its calls limited by the {@code partner} policy through {@link TollgateClientFilter}, so
 * that every node sharing the Redis stays under the partner's quota together.
 *
 * <p>A call waits for its token up to the policy's {@code max-wait}; one whose token comes later is
 * not sent, and answers {@code 503} with {@code Retry-After}. So does a call the partner itself
 * refused with {@code 429} or {@code 503}: the filter has then paused every node's calls until the
 * partner's {@code Retry-After}. Thread-safe.
 */
@ApplicationScoped
public class PartnerClient {

    /** Where the partner's API is; unset, the stand-in of this application ({@link PartnerStandIn}). */
    @Inject
    @ConfigProperty(name = "partner.base-url")
    Optional<URI> baseUrl;

    @Inject
    ServletContext servletContext;

    private TollgateClientFilter limit;
    private Client client;

    @PostConstruct
    void open() {
        // the limiter of the application's TollgateFeature, as docs/outbound.md takes it
        RateLimiter limiter = (RateLimiter) servletContext.getAttribute(TollgateFeature.LIMITER_ATTRIBUTE);
        if (limiter == null) {
            throw new IllegalStateException("no Tollgate limiter in this application (TollgateFeature not registered?)");
        }
        limit = TollgateClientFilter.forPolicy(limiter, "partner");
        client = ClientBuilder.newClient().register(limit);
    }

    @PreDestroy
    void close() {
        client.close();
    }

    /**
     * Asks the partner about {@code id}.
     *
     * @param requestBase the base URI of the request being served, where the stand-in is when
     *                    {@code partner.base-url} is not set
     */
    public Response item(URI requestBase, String id) {
        URI base = baseUrl.orElseGet(() -> requestBase.resolve("partner-stand-in"));
        try (Response answer = client.target(base).path("items").path(id).request(MediaType.TEXT_PLAIN).get()) {
            int status = answer.getStatus();
            if (status == 429 || status == 503) {
                // the filter read the partner's Retry-After and paused every node's calls until then
                return busy("the partner refused the call (" + status + ")", answer.getHeaderString("Retry-After"));
            }
            if (status != 200) {
                return Response.status(Response.Status.BAD_GATEWAY).entity("the partner answered " + status).build();
            }
            return Response.ok("partner says: " + answer.readEntity(String.class)).build();
        } catch (ProcessingException e) {
            RemoteQuotaException spent = RemoteQuotaException.of(e);
            if (spent == null) {
                throw e;
            }
            // nothing was sent: the quota (or the partner's pause) comes back in spent.retryAfter()
            return busy("the partner's quota is used up", Long.toString(wholeSeconds(spent.retryAfter())));
        }
    }

    /** What the client's filter did so far: calls sent, waited, not sent, refused by the partner, pauses. */
    public TollgateClientFilter.Counts counts() {
        return limit.counts();
    }

    /** Our caller is not at fault, the partner is unavailable for a while: 503, and when to come back. */
    private static Response busy(String why, String retryAfter) {
        Response.ResponseBuilder answer = Response.status(Response.Status.SERVICE_UNAVAILABLE)
                .type(MediaType.TEXT_PLAIN).entity(why + "; try again later");
        return (retryAfter == null ? answer : answer.header("Retry-After", retryAfter)).build();
    }

    private static long wholeSeconds(Duration d) {
        return Math.max(1, (d.toMillis() + 999) / 1000);
    }
}
