package dev.tollgate.servlet;

import dev.tollgate.Decision;
import dev.tollgate.adapter.HealthEndpoint;
import dev.tollgate.HttpAnswer;
import dev.tollgate.adapter.Integration;
import dev.tollgate.Permit;
import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSource;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.HealthSettings;
import dev.tollgate.config.TollgateConfig;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Rate limits the requests it is mapped to. Declare it in {@code web.xml}:
 *
 * <pre>{@code
 * <filter>
 *   <filter-name>tollgate</filter-name>
 *   <filter-class>dev.tollgate.servlet.TollgateFilter</filter-class>
 *   <async-supported>true</async-supported>
 *   <init-param>
 *     <param-name>tollgate.policy.default.limits</param-name>
 *     <param-value>10/s burst 20</param-value>
 *   </init-param>
 * </filter>
 * <filter-mapping>
 *   <filter-name>tollgate</filter-name>
 *   <url-pattern>/api/*</url-pattern>
 * </filter-mapping>
 * }</pre>
 *
 * <p>Configuration comes from, highest first: MicroProfile Config when the server has it (else
 * system properties and environment variables by the same naming rule), the filter's
 * init-params, the application's context-params, then defaults. A bad value stops the deployment:
 * {@link TollgateInitializer} checks every declared filter while the application deploys, and
 * {@link #init} fails too. If a container still routes requests through a filter that did not
 * start, they get 503, never an unlimited pass.
 *
 * <p>An allowed request gets the {@code RateLimit-Policy} and {@code RateLimit} headers and goes
 * on. A refused one gets 429 with {@code Retry-After} and an {@code application/problem+json}
 * body, and never reaches the application. Nothing a client sends makes this filter throw.
 *
 * <p>A request is decided once: when the filter is also mapped for the {@code ASYNC},
 * {@code FORWARD}, {@code INCLUDE} or {@code ERROR} dispatcher types, a later dispatch of a request
 * it has decided goes through unchecked, charging no second token and taking no second slot;
 * the first decision's slot is given back when the request's response is done.
 *
 * <p>With {@code tollgate.health.path} set, it answers Tollgate's readiness and liveness at that
 * path ({@link HealthEndpoint}) to the connection addresses {@code tollgate.health.allow} lists,
 * before any limit; {@link TollgateInitializer} maps it there.
 *
 * <p>Thread-safe, as the container requires.
 */
public class TollgateFilter implements Filter {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    /**
     * The {@code ServletContext} attribute under which a started filter puts its {@link RateLimiter}
     * (the first filter of the application to start, if it declares several), for application
     * code: {@code (RateLimiter) context.getAttribute(TollgateFilter.LIMITER_ATTRIBUTE)}. Each
     * filter's is also under this name, a dot and the filter's name.
     */
    public static final String LIMITER_ATTRIBUTE = RateLimiter.class.getName();

    private volatile RateLimiter limiter;
    private volatile boolean warnedNotStarted;
    /** Where the limiter is published; set by {@link #init} when it made the limiter. */
    private volatile FilterConfig filterConfig;
    private final boolean owned;
    /**
     * The request attribute that marks a request this filter decided, so that a re-dispatch of it
     * is not checked again; one per filter, since two filters with their own policies each decide.
     */
    private final String decidedAttribute = TollgateFilter.class.getName() + ".decided#" + INSTANCES.incrementAndGet();
    private static final AtomicLong INSTANCES = new AtomicLong();
    /** Tollgate's health over HTTP ({@code tollgate.health.path}); {@code null} before {@link #init}. */
    private volatile HealthEndpoint health;
    /** The last refusal's body and its bytes ({@link #bytes}). */
    private Encoded lastBody;

    /** The filter the container creates from {@code web.xml}; it configures itself in {@link #init}. */
    public TollgateFilter() {
        this.owned = true;
    }

    /**
     * A filter over a limiter built by the application, for programmatic registration
     * ({@code ServletContext.addFilter}). The caller closes the limiter.
     */
    public TollgateFilter(RateLimiter limiter) {
        this.limiter = limiter;
        this.owned = false;
    }

    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        ServletContext context = filterConfig.getServletContext();
        ConfigLookup lookup = lookup(context, filterConfig.getFilterName(), filterConfig::getInitParameter,
                () -> Collections.list(filterConfig.getInitParameterNames()));
        try {
            health = new HealthEndpoint(HealthSettings.load(lookup));
        } catch (ConfigException e) {
            LOG.severe(e.getMessage());
            throw new ServletException(e.getMessage(), e);
        }
        if (limiter != null) {
            return;
        }
        ClassLoader loader = context.getClassLoader();
        String name = (context.getContextPath().isEmpty() ? "/" : context.getContextPath()) + " " + filterConfig.getFilterName();
        try {
            // the application's loader: a policy its code names (@RateLimited) without a match applies there only
            limiter = RateLimiter.create(TollgateConfig.load(lookup, loader), name, () -> TollgateConfig.load(lookup, loader),
                    loader);
        } catch (ConfigException e) {
            LOG.severe(e.getMessage());
            throw new ServletException(e.getMessage(), e);
        }
        this.filterConfig = filterConfig;
        LimiterAttribute.publish(context, LIMITER_ATTRIBUTE + "." + filterConfig.getFilterName(), limiter);
    }

    /**
     * The configuration sources of a filter, highest first. Each lists its names, so a mistyped
     * init-param or context-param is warned about (or refused with {@code tollgate.strict-config})
     * like a mistyped environment variable. Last, the application's name as the container gives
     * it ({@link #application}), the namespace of its keys unless {@code tollgate.namespace} is set.
     */
    static ConfigLookup lookup(ServletContext context, String filterName, UnaryOperator<String> initParams,
                               Supplier<? extends Collection<String>> initParamNames) {
        return ConfigLookup.of(
                ConfigSources.server(context.getClassLoader()),
                ConfigSources.of("init-param of filter '" + filterName + "'", initParams, initParamNames),
                ConfigSources.of("context-param of the web application", context::getInitParameter,
                        () -> Collections.list(context.getInitParameterNames())),
                application(context));
    }

    /**
     * The application's name as the servlet context gives it ({@link ConfigSources#application(ClassLoader,
     * String, String)}): its context path, at the root path its display name; remembered for its class loader.
     */
    static ConfigSource application(ServletContext context) {
        return ConfigSources.application(context.getClassLoader(), context.getContextPath(), context.getServletContextName());
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        if (answeredHealth((HttpServletRequest) request, (HttpServletResponse) response)) {
            return;
        }
        if (request.getAttribute(decidedAttribute) != null) {
            // a re-dispatch (async, forward, include, error) of a request decided already: its
            // first pass holds the permit and gives it back when the response is done
            chain.doFilter(request, response);
            return;
        }
        HttpServletResponse http = (HttpServletResponse) response;
        RateLimiter rl = limiter;
        if (rl == null) {
            notStarted(http);
            return;
        }
        HttpAnswer answer = HttpAnswer.PASS;
        Permit permit = Permit.NONE;
        try {
            Decision decision = rl.check(new ServletRequestView((HttpServletRequest) request));
            permit = decision.permit();
            // so that the CDI interceptor does not count this request again under these policies
            request.setAttribute(Integration.DECIDED_ATTRIBUTE,
                    Integration.decided(request.getAttribute(Integration.DECIDED_ATTRIBUTE), decision));
            answer = rl.answer(decision);
            java.util.List<HttpAnswer.Header> headers = answer.headers();
            for (int i = 0; i < headers.size(); i++) { // by index: no iterator per request
                HttpAnswer.Header h = headers.get(i);
                http.addHeader(h.name(), h.value());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Integration.internalErrorMessage("unexpected error in TollgateFilter; the request goes through"), e);
            answer = HttpAnswer.PASS;
        }
        request.setAttribute(decidedAttribute, Boolean.TRUE);
        if (answer.passes()) {
            try {
                chain.doFilter(request, response);
            } finally {
                SlotRelease.whenDone(request, permit);
            }
            return;
        }
        permit.release(); // never held on a refusal; for safety
        write(http, answer);
    }

    /** Answers a request for {@code tollgate.health.path}, if it is one. */
    private boolean answeredHealth(HttpServletRequest request, HttpServletResponse response) throws IOException {
        HealthEndpoint endpoint = health;
        if (endpoint == null || endpoint.path() == null) {
            return false;
        }
        String path = new ServletRequestView(request).path();
        if (!endpoint.covers(path)) {
            return false;
        }
        // the connection's peer: a forwarded address is the client's word, and would open the path to anyone
        HttpAnswer a = endpoint.answer(request.getMethod(), path, request.getRemoteAddr(), limiter != null);
        for (HttpAnswer.Header header : a.headers()) {
            response.setHeader(header.name(), header.value());
        }
        if ("HEAD".equals(request.getMethod())) {
            response.setStatus(a.status());
            response.setContentType(a.contentType());
        } else {
            write(response, a);
        }
        return true;
    }

    /** Writes the status and body of an answer that does not pass (its headers are added already). */
    private void write(HttpServletResponse http, HttpAnswer answer) throws IOException {
        byte[] body = bytes(answer.body());
        http.setStatus(answer.status());
        http.setContentType(answer.contentType());
        http.setCharacterEncoding("UTF-8");
        http.setContentLength(body.length);
        http.getOutputStream().write(body);
    }

    /**
     * A body's UTF-8 bytes. The refusals of one client in one window answer the same string (the
     * engine keeps its last problem document per policy), so the last string's bytes are kept and
     * written again: never changed once made, and the container copies what it is given.
     */
    private byte[] bytes(String body) {
        Encoded last = lastBody;
        if (last != null && last.body() == body) {
            return last.bytes();
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        lastBody = new Encoded(body, bytes);
        return bytes;
    }

    /** A body and its bytes; read and written without a lock (immutable, published whole). */
    private record Encoded(String body, byte[] bytes) {
    }

    /**
     * A container that routes requests through a filter whose start failed (or after it was
     * destroyed) gets 503, never an unlimited pass.
     */
    private void notStarted(HttpServletResponse http) throws IOException {
        if (!warnedNotStarted) {
            warnedNotStarted = true;
            LOG.severe(Integration.internalErrorMessage("a request reached TollgateFilter, which has not started (its start"
                    + " failed, or it was destroyed); it answers 503 rather than let requests through unlimited"));
        }
        HttpAnswer answer = Integration.notStartedAnswer();
        for (HttpAnswer.Header h : answer.headers()) {
            http.setHeader(h.name(), h.value());
        }
        write(http, answer);
    }

    @Override
    public void destroy() {
        RateLimiter rl = limiter;
        if (owned && rl != null) {
            FilterConfig fc = filterConfig;
            if (fc != null) {
                LimiterAttribute.withdraw(fc.getServletContext(), LIMITER_ATTRIBUTE + "." + fc.getFilterName(), rl);
            }
            rl.close();
            limiter = null;
        }
    }

    /** The limiter in use, e.g. for a health check; {@code null} before {@link #init}. */
    public RateLimiter limiter() {
        return limiter;
    }
}
