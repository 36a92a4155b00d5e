package dev.tollgate.examples;

import dev.tollgate.Acquisition;
import dev.tollgate.Limiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The batch job of docs/programmatic.md, as the page quotes it ({@code ProgrammaticPageTest}
 * checks the quote and runs it).
 */
public final class NightlyExport {

    private final Limiter limiter;

    public NightlyExport(Limiter limiter) {
        this.limiter = limiter;
    }

    /**
     * Exports each tenant's data, 3 tokens of policy {@code exports} each, from the bucket the
     * API's filter uses for that tenant; waits up to a minute for the tokens, and skips a tenant
     * whose tokens would take longer (the next run picks it up).
     *
     * @return the tenants skipped
     */
    public List<String> run(List<String> tenants, Consumer<String> export) throws InterruptedException {
        List<String> skipped = new ArrayList<>();
        for (String tenant : tenants) {
            try (Acquisition tokens = limiter.acquire("exports", "header.x-tenant=" + tenant, 3, Duration.ofMinutes(1))) {
                if (tokens.allowed()) {
                    export.accept(tenant);
                } else {
                    skipped.add(tenant); // tokens.retryAfter() says when it could run
                }
            }
        }
        return skipped;
    }
}
