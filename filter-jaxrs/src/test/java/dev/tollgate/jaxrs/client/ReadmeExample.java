package dev.tollgate.jaxrs.client;

import dev.tollgate.RateLimiter;
import dev.tollgate.jaxrs.TollgateFeature;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;

/**
 * The example of docs/outbound.md, "Limiting outbound calls", line for line between the markers
 * ({@link ReadmeExampleTest} holds the two equal; {@code OutboundIT} runs it against a real remote).
 */
public final class ReadmeExample {

    private final Client github;
    private final String base;

    public ReadmeExample(ServletContext servletContext, String base) {
        this.base = base;
        // README begin: client
        RateLimiter limiter = (RateLimiter) servletContext.getAttribute(TollgateFeature.LIMITER_ATTRIBUTE);
        Client github = ClientBuilder.newClient()
                .register(TollgateClientFilter.forPolicy(limiter, "github"));
        // README end
        this.github = github;
    }

    public String repository(String name) {
        // README begin: call
        try {
            return github.target(base).path("repos").path(name).request().get(String.class);
        } catch (ProcessingException e) {
            RemoteQuotaException spent = RemoteQuotaException.of(e);
            if (spent == null) {
                throw e;
            }
            // nothing was sent: the quota comes back in spent.retryAfter()
            return "busy, try again in " + spent.retryAfter().toSeconds() + " s";
        }
        // README end
    }

    public void close() {
        github.close();
    }
}
