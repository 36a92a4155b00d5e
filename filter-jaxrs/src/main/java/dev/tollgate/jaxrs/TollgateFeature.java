package dev.tollgate.jaxrs;

import dev.tollgate.Limit;
import dev.tollgate.Plans;
import dev.tollgate.Policy;
import dev.tollgate.adapter.Integration;
import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import jakarta.annotation.PreDestroy;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.WriterInterceptor;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;

/**
 * Puts Tollgate in front of JAX-RS resource methods. Register it like any provider (class-path
 * scanning finds it through {@code @Provider}, or list it in {@code Application.getClasses()}).
 *
 * <ul>
 *   <li>A method (or class) annotated {@link RateLimited} is limited by the named policies.</li>
 *   <li>With {@code tollgate.jaxrs.global=true}, every other resource method is limited by the
 *       policies whose {@code match} covers the request, like the servlet filter, except the
 *       policies that some {@code @RateLimited} (this one, or the CDI interceptor's) names and
 *       that have no {@code match} of their own: those apply only where they are named. The
 *       feature declares the policies it finds named for the application's class loader
 *       ({@link Integration#declareNamedInCode}), so a servlet filter of the application leaves
 *       them out too, from the moment the runtime configures its resources.</li>
 *   <li>Client keys may use {@code route}: the resource method's template
 *       ({@code /users/{id}}), never the raw path, so varying the path makes no new bucket.</li>
 * </ul>
 *
 * <p><b>Before or after authentication?</b> Both, by policy. Authentication done by the container
 * (Jakarta Security, a realm, MicroProfile JWT) is over before any JAX-RS filter runs. Policies
 * whose key reads the principal are checked at priority {@code AUTHORIZATION - 100}, after
 * JAX-RS authentication filters ({@code AUTHENTICATION}), so they see the user those filters set.
 * All other policies (by address, header, route) are checked at {@code AUTHENTICATION - 100},
 * before any authentication filter, so an address policy on a login resource also counts the
 * attempts that authentication rejects. Each phase is one atomic decision; a request refused in
 * the second phase keeps the tokens it took in the first. Which phase a policy belongs to is
 * decided per request by the configuration in force, so a reload that changes a policy's key (or
 * makes its plans depend on roles) moves it; {@code tollgate.enabled} and
 * {@code tollgate.jaxrs.global} follow reloads too. So every resource method gets the filters,
 * limited now or not.
 *
 * <p>Configuration comes from MicroProfile Config (or, without it, system properties and the
 * environment), then the JAX-RS application's properties ({@code Application.getProperties()}),
 * then defaults. A bad value, or a {@code @RateLimited} name that is not configured, fails the
 * deployment.
 *
 * <p>Thread-safe.
 */
@Provider
public class TollgateFeature implements DynamicFeature {

    /** Priority of the phase for policies that do not read the principal. */
    public static final int BEFORE_AUTHENTICATION = Priorities.AUTHENTICATION - 100;
    /** Priority of the phase for policies that read the principal. */
    public static final int AFTER_AUTHENTICATION = Priorities.AUTHORIZATION - 100;

    /**
     * The {@code ServletContext} attribute under which the feature puts its {@link RateLimiter}
     * when no servlet filter of the application put one there first, for application code:
     * {@code (RateLimiter) context.getAttribute(TollgateFeature.LIMITER_ATTRIBUTE)}; it is also
     * always under this name followed by {@code .jaxrs}. The same name as the servlet filter's.
     */
    public static final String LIMITER_ATTRIBUTE = RateLimiter.class.getName();

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private RateLimiter limiter;

    /** Injected where the runtime runs on servlets (all the servers Tollgate targets), for the limiter's name. */
    @Context
    private ServletContext servletContext;
    /** The application's class loader, under which the limiter is made and the annotations' policies are declared. */
    private ClassLoader application;
    /**
     * Withdraws, each, the policies one {@code @RateLimited} names from those the application's
     * code names ({@link Integration#declareNamedInCode}): a limiter of the application (this
     * one in global mode, a servlet filter's) applies them by {@code match} only when they have
     * one of their own.
     */
    private final List<Runnable> named = new CopyOnWriteArrayList<>();

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Method method = resourceInfo.getResourceMethod();
        Class<?> type = resourceInfo.getResourceClass();
        if (method == null || type == null) {
            return;
        }
        RateLimiter rl = limiter(context.getConfiguration());
        RateLimited annotation = method.getAnnotation(RateLimited.class);
        if (annotation == null) {
            annotation = type.getAnnotation(RateLimited.class);
        }
        List<String> names = null;
        long cost = 0;
        if (annotation != null) {
            // checked whether or not Tollgate is enabled now: a reload may enable it
            for (String name : annotation.value()) {
                Policy p = rl.config().policy(name).orElseThrow(() -> unknownPolicy(name, type, method, rl));
                requireCost(rl, annotation.cost(), p, type, method);
            }
            names = List.of(annotation.value());
            named.add(Integration.declareNamedInCode(application, names));
            cost = annotation.cost();
        }
        // every resource method gets the filters: which policies apply, in which phase, and whether
        // Tollgate is enabled or global at all, is read per request from the configuration in force
        register(context, rl, names, template(type, method), cost);
    }

    /**
     * Whether a policy must wait for authentication: its key reads the principal, or its limits
     * depend on a plan chosen by role.
     */
    static boolean afterAuthentication(Policy p, Plans plans) {
        return p.key().usesPrincipal() || (plans.usesPrincipal() && !p.planLimits().isEmpty());
    }

    /** Registers the annotation's policy and cost with the limiter, which keeps them valid across reloads. */
    private void requireCost(RateLimiter rl, long cost, Policy p, Class<?> type, Method method) {
        String where = "@RateLimited(" + (cost == 0 ? "" : "cost = " + cost) + ") on " + type.getName() + "#" + method.getName();
        try {
            rl.requirePolicy(p.name(), cost, where);
        } catch (ConfigException e) {
            throw fail(e.getMessage());
        }
    }

    /**
     * A deployment error: logged, and the limiter closed, for the runtime will not deploy the
     * application and never destroys this provider (its Redis connections would stay open).
     */
    private IllegalStateException fail(String message) {
        LOG.severe(message);
        close();
        return new IllegalStateException(message);
    }

    private static void register(FeatureContext context, RateLimiter rl, List<String> names, String route, long cost) {
        // By class, so that the runtime creates it and injects the servlet request into it.
        context.register(RemoteAddressFilter.class, BEFORE_AUTHENTICATION - 1);
        context.register(new TollgateRequestFilter.BeforeAuthentication(rl, names, route, cost), BEFORE_AUTHENTICATION);
        context.register(new TollgateRequestFilter.AfterAuthentication(rl, route, cost), AFTER_AUTHENTICATION);
        // one instance, two contracts: headers and slots for a response without an entity as a
        // response filter, slots once the entity has been written as a writer interceptor
        context.register(new TollgateResponseFilter(), Map.of(ContainerResponseFilter.class, Priorities.HEADER_DECORATOR,
                WriterInterceptor.class, TollgateResponseFilter.AROUND_EVERY_WRITER));
    }

    private synchronized RateLimiter limiter(Configuration configuration) {
        if (limiter == null) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader == null) {
                loader = TollgateFeature.class.getClassLoader();
            }
            ConfigLookup lookup = ConfigLookup.of(
                    ConfigSources.server(loader),
                    ConfigSources.of("JAX-RS application property", key -> {
                        Object v = configuration.getProperty(key);
                        return v == null ? null : v.toString();
                    }, configuration::getPropertyNames),
                    ConfigSources.application(loader)); // the namespace, as the servlet context names the application
            String name = "jaxrs";
            try {
                if (servletContext != null) {
                    name = (servletContext.getContextPath().isEmpty() ? "/" : servletContext.getContextPath()) + " jaxrs";
                    ConfigSources.application(loader, servletContext.getContextPath(), servletContext.getServletContextName());
                }
            } catch (RuntimeException | LinkageError e) {
                // no servlet context behind this runtime: the namespace is tollgate.namespace's, else the default
            }
            ClassLoader l = loader;
            application = loader;
            try {
                limiter = RateLimiter.create(TollgateConfig.load(lookup, loader), name, () -> TollgateConfig.load(lookup, l),
                        loader);
            } catch (ConfigException e) {
                LOG.severe(e.getMessage());
                throw e;
            }
            publish(limiter, true);
        }
        return limiter;
    }

    private IllegalStateException unknownPolicy(String name, Class<?> type, Method method, RateLimiter rl) {
        return fail(Integration.unknownPolicyMessage(rl, "@RateLimited on " + type.getName() + "#" + method.getName(), name));
    }

    /** Puts the limiter in (or takes it out of) the servlet context, where the application can reach it. */
    private void publish(RateLimiter rl, boolean on) {
        try {
            if (servletContext == null) {
                return;
            }
            synchronized (ServletContext.class) {
                if (on) {
                    servletContext.setAttribute(LIMITER_ATTRIBUTE + ".jaxrs", rl);
                    if (servletContext.getAttribute(LIMITER_ATTRIBUTE) == null) {
                        servletContext.setAttribute(LIMITER_ATTRIBUTE, rl);
                    }
                } else {
                    servletContext.removeAttribute(LIMITER_ATTRIBUTE + ".jaxrs");
                    if (servletContext.getAttribute(LIMITER_ATTRIBUTE) == rl) {
                        servletContext.removeAttribute(LIMITER_ATTRIBUTE);
                    }
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // no servlet context behind this runtime (or a proxy to none): nothing to publish
        }
    }

    /** The resource method's template from its {@code @Path} annotations, e.g. {@code /users/{id}}. */
    static String template(Class<?> type, Method method) {
        Path onType = type.getAnnotation(Path.class);
        Path onMethod = method.getAnnotation(Path.class);
        StringBuilder sb = new StringBuilder();
        for (Path p : new Path[] {onType, onMethod}) {
            if (p == null) {
                continue;
            }
            String v = p.value().trim();
            if (v.isEmpty() || v.equals("/")) {
                continue;
            }
            if (v.charAt(0) != '/') {
                sb.append('/');
            }
            sb.append(v.endsWith("/") ? v.substring(0, v.length() - 1) : v);
        }
        return sb.length() == 0 ? "/" : sb.toString();
    }

    /** Closes the connection pool when the runtime destroys this provider (undeployment). */
    @PreDestroy
    public synchronized void close() {
        named.forEach(Runnable::run);
        named.clear();
        if (limiter != null) {
            publish(limiter, false);
            limiter.close();
            limiter = null;
        }
    }
}
