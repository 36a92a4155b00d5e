package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.LoadGenerator;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The floor of a refusal inside the application: what Tomcat itself spends to answer a 429 of
 * Tollgate's shape (the same headers and body, as constants), with no limiter at all. The
 * runaway client ({@code X-Client-Id: runaway}) is always refused, everyone else goes on. Phase G
 * of {@link ScenarioRun}: its application CPU against phase C's is what Tollgate adds per refusal.
 */
public final class StaticRefusalFilter implements Filter {

    // What Tollgate answers the runaway under "10/s burst 20" (HttpContract), byte for byte.
    private static final byte[] BODY = ("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
            + "\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\",\"status\":429,"
            + "\"detail\":\"Rate limit of policy 'default' exceeded;"
            + " retry in 1 s.\",\"violated-policies\":[\"default\"],\"retry-after\":1}").getBytes(StandardCharsets.UTF_8);

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        if (!"runaway".equals(req.getHeader(LoadGenerator.HEADER))) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletResponse http = (HttpServletResponse) response;
        http.addHeader("RateLimit-Policy", "\"default\";q=20;w=2");
        http.addHeader("RateLimit", "\"default\";r=0;t=1");
        http.addHeader("Retry-After", "1");
        http.setStatus(429);
        http.setContentType("application/problem+json;charset=UTF-8");
        http.setContentLength(BODY.length);
        http.getOutputStream().write(BODY);
    }
}
