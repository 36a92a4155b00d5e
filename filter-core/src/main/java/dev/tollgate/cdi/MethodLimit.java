package dev.tollgate.cdi;

import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link RateLimited} asks of one method: the policies, the cost, which parameters make the
 * key, and the names it goes by in messages and in its key outside an HTTP request. Immutable but
 * for the limiters it has been registered with; thread-safe.
 */
final class MethodLimit {

    private final List<String> policies;
    private final long cost;
    private final int[] keyParameters;
    private final String where;
    private final String noRequestKey;
    private final Set<RateLimiter> registered = ConcurrentHashMap.newKeySet();

    MethodLimit(List<String> policies, long cost, int[] keyParameters, String where, String noRequestKey) {
        this.policies = List.copyOf(policies);
        this.cost = cost;
        this.keyParameters = keyParameters.clone();
        this.where = where;
        this.noRequestKey = noRequestKey;
    }

    /** A method as called on a bean class (which may inherit it, with a class annotation of its own). */
    record Key(Class<?> beanClass, Method method) {
    }

    /**
     * The limit of a call: the method's annotation, else the bean class's (inherited, so a
     * container's subclass of the bean finds it), else the method's class's, else what the
     * container says the binding is (a stereotype's, an extension's).
     */
    static MethodLimit find(Key call, java.util.function.Supplier<RateLimited> binding) {
        Method m = call.method();
        RateLimited a = m.getAnnotation(RateLimited.class);
        if (a == null && call.beanClass() != null) {
            a = call.beanClass().getAnnotation(RateLimited.class);
        }
        if (a == null) {
            a = m.getDeclaringClass().getAnnotation(RateLimited.class);
        }
        if (a == null) {
            a = binding.get();
        }
        return a == null ? null : of(m, a);
    }

    /** The limit of {@code method} under {@code annotation} (the method's own, else its class's). */
    static MethodLimit of(Method method, RateLimited annotation) {
        Annotation[][] params = method.getParameterAnnotations();
        int[] keys = new int[params.length];
        int n = 0;
        for (int i = 0; i < params.length; i++) {
            for (Annotation a : params[i]) {
                if (a instanceof RateLimitKey) {
                    keys[n++] = i;
                    break;
                }
            }
        }
        return new MethodLimit(List.of(annotation.value()), annotation.cost(), java.util.Arrays.copyOf(keys, n),
                where(annotation, method.getDeclaringClass().getName() + "#" + method.getName()),
                ArgumentKeys.noRequest(method.getDeclaringClass(), method.getName()));
    }

    /** How messages name an annotation on a method or class, as the JAX-RS adapter names its own. */
    static String where(RateLimited annotation, String on) {
        return "@RateLimited(" + (annotation.cost() == 0 ? "" : "cost = " + annotation.cost()) + ") on " + on;
    }

    List<String> policies() {
        return policies;
    }

    long cost() {
        return cost;
    }

    String where() {
        return where;
    }

    /** Whether some parameter is a {@link RateLimitKey}. */
    boolean keyed() {
        return keyParameters.length > 0;
    }

    /** The key of a call with these arguments ({@link #keyed()} only). */
    String argumentKey(Object[] arguments) {
        Object[] values = new Object[keyParameters.length];
        for (int i = 0; i < values.length; i++) {
            int p = keyParameters[i];
            values[i] = arguments != null && p < arguments.length ? arguments[p] : null;
        }
        return ArgumentKeys.of(values);
    }

    /** The key of every call made outside an HTTP request when no parameter is a key. */
    String noRequestKey() {
        return noRequestKey;
    }

    /**
     * Whether {@code limiter} can decide this method's calls: it declares every policy, and the
     * cost fits them. The first time, this registers the requirement with the limiter, which then
     * refuses a reload that would break it (as for JAX-RS {@code @RateLimited}).
     */
    boolean decidableBy(RateLimiter limiter) {
        if (registered.contains(limiter)) {
            return true;
        }
        try {
            for (String p : policies) {
                limiter.requirePolicy(p, cost, where);
            }
        } catch (ConfigException e) {
            return false;
        }
        registered.add(limiter);
        return true;
    }
}
