package dev.tollgate.cdi;

import dev.tollgate.adapter.Integration;
import dev.tollgate.Policy;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.engine.OpenChecks;
import dev.tollgate.internal.engine.PolicyRequirement;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.BeforeShutdown;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.interceptor.Interceptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Tollgate's CDI interceptor in an application: adds {@link RateLimitInterceptor} (once, whether
 * or not the jar is a scanned bean archive), fails the deployment when a {@link RateLimited}
 * names a policy the configuration does not declare or a cost that does not fit it
 * ({@code TOLLGATE-003}, naming the method and the policy), holds the application's
 * {@link Limiters} and closes them when the application stops.
 *
 * <p>Once the deployment is valid, before any request, it declares the policies the annotations
 * name for the application's class loader ({@link Integration#declareNamedInCode}): a Tollgate
 * filter of the application then applies such a policy by {@code match} only when it has a match
 * of its own, else the policy limits the methods that name it and nothing else. Withdrawn when
 * the application stops.
 *
 * <p>The configuration it checks against is the server's (MicroProfile Config, else system
 * properties and the environment): declare the policies of CDI methods there (an application's
 * {@code META-INF/microprofile-config.properties} is part of it), not only in a {@code web.xml}
 * that a CDI extension cannot read.
 *
 * <p>CDI calls its observers during deployment, one at a time; {@link #calls()} is thread-safe.
 */
public class RateLimitExtension implements Extension {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    /** Where each annotation is, for the check at the end of deployment. */
    private final List<Declared> declared = new ArrayList<>();
    private final Map<MethodLimit.Key, MethodLimit> limits = new ConcurrentHashMap<>();
    private volatile CallLimiter calls;
    private volatile Limiters limiters;
    /** Withdraws the policies the annotations name from the application's ({@link Integration#declareNamedInCode}). */
    private volatile Runnable named = () -> { };

    private record Declared(String where, RateLimited annotation) {
    }

    void addInterceptor(@Observes BeforeBeanDiscovery event, BeanManager beans) {
        event.addAnnotatedType(beans.createAnnotatedType(RateLimitInterceptor.class), RateLimitInterceptor.class.getName());
    }

    <T> void collect(@Observes @WithAnnotations(RateLimited.class) ProcessAnnotatedType<T> event) {
        AnnotatedType<T> type = event.getAnnotatedType();
        if (type.isAnnotationPresent(Interceptor.class)) {
            return;
        }
        RateLimited onType = type.getAnnotation(RateLimited.class);
        if (onType != null) {
            declared.add(new Declared(MethodLimit.where(onType, type.getJavaClass().getName()), onType));
        }
        for (AnnotatedMethod<? super T> m : type.getMethods()) {
            RateLimited a = m.getAnnotation(RateLimited.class);
            if (a != null) {
                Method jm = m.getJavaMember();
                declared.add(new Declared(MethodLimit.where(a, jm.getDeclaringClass().getName() + "#" + jm.getName()), a));
            }
        }
    }

    void validate(@Observes AfterDeploymentValidation event, BeanManager beans) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = RateLimitExtension.class.getClassLoader();
        }
        ClassLoader l = loader;
        // the application's name, which a servlet container declares for this class loader
        // (TollgateInitializer), is the namespace here too: the interceptor shares the filters' buckets
        ConfigLookup lookup = ConfigLookup.of(ConfigSources.server(l), ConfigSources.application(l));
        Supplier<TollgateConfig> configuration = () -> TollgateConfig.load(lookup, l);
        limiters = new Limiters(configuration, "cdi");
        calls = new CallLimiter(limiters, ServletRequests.of(beans, l));
        if (declared.isEmpty()) {
            return; // an application without @RateLimited methods needs no configuration of them
        }
        List<String> problems = problems(configuration);
        for (String problem : problems) {
            LOG.severe(problem);
            event.addDeploymentProblem(new DeploymentException(problem));
        }
        if (problems.isEmpty()) {
            // before any request: the application's filters apply these policies by match only
            // when they have a match of their own, else they limit the methods that name them
            Set<String> names = new LinkedHashSet<>();
            declared.forEach(d -> names.addAll(List.of(d.annotation().value())));
            named = Integration.declareNamedInCode(loader, names);
        }
        declared.clear();
    }

    /** What is wrong with the annotations under the configuration, each a message; empty when nothing. */
    private List<String> problems(Supplier<TollgateConfig> configuration) {
        TollgateConfig config;
        try {
            config = configuration.get();
        } catch (ConfigException e) {
            return List.of(e.getMessage());
        }
        List<String> atOpen = OpenChecks.problems(config); // what the limiter would refuse when it opens
        if (!atOpen.isEmpty()) {
            return List.of(new ConfigException(atOpen).getMessage());
        }
        if (!config.enabled()) {
            return List.of();
        }
        List<String> known = new ArrayList<>();
        for (Policy p : config.policies()) {
            known.add(p.name());
        }
        List<String> problems = new ArrayList<>();
        for (Declared d : declared) {
            for (String name : d.annotation().value()) {
                if (config.policy(name).isEmpty()) {
                    problems.add(Messages.unknownPolicy(d.where(), name, known));
                } else {
                    new PolicyRequirement(name, d.annotation().cost(), d.where()).check(config, problems);
                }
            }
        }
        return problems;
    }

    void close(@Observes BeforeShutdown event) {
        named.run();
        Limiters l = limiters;
        if (l != null) {
            l.close();
        }
    }

    /** The mechanism the interceptor calls; {@code null} before deployment is over. */
    CallLimiter calls() {
        return calls;
    }

    /** The limit of a method of a bean class, found once. */
    MethodLimit limitOf(Class<?> beanClass, Method method, Supplier<RateLimited> binding) {
        return limits.computeIfAbsent(new MethodLimit.Key(beanClass, method), k -> MethodLimit.find(k, binding));
    }
}
