package dev.tollgate.cdi;

import dev.tollgate.Permit;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.io.Serializable;
import java.util.concurrent.CompletionStage;

/**
 * The interceptor of {@link RateLimited} methods: decides each call before it runs, throws
 * {@link RateLimitExceededException} when refused, and gives back the concurrency slots a call
 * took when it returns or throws (for a {@link CompletionStage} result, when the stage completes).
 *
 * <p>Enabled in every application by its {@code @Priority} (no {@code beans.xml} entry), early
 * among the libraries' interceptors ({@code LIBRARY_BEFORE + 10}): outside a fault-tolerance
 * retry, so a retried call is counted once. {@link RateLimitExtension} adds it to the application.
 * Never throws anything but the refusal and what the method throws. Thread-safe.
 */
@RateLimited({})
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 10)
public class RateLimitInterceptor implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Passivation capable (a built-in bean), so beans of passivating scopes can be limited. */
    @Inject
    private BeanManager beans;

    @AroundInvoke
    public Object limit(InvocationContext call) throws Exception {
        RateLimitExtension extension = beans.getExtension(RateLimitExtension.class);
        CallLimiter calls = extension.calls();
        Object target = call.getTarget();
        MethodLimit limit = calls == null ? null : extension.limitOf(target == null ? null : target.getClass(),
                call.getMethod(), () -> binding(call));
        if (limit == null) {
            return call.proceed(); // called during deployment, before the check: nothing to decide with yet
        }
        Permit permit = calls.admit(limit, call.getParameters());
        if (!permit.held()) {
            return call.proceed();
        }
        boolean later = false;
        try {
            Object result = call.proceed();
            if (result instanceof CompletionStage<?> stage) {
                stage.whenComplete((r, e) -> permit.release());
                later = true;
            }
            return result;
        } finally {
            if (!later) {
                permit.release();
            }
        }
    }

    /** The bindings Weld lists in the context data (Jakarta Interceptors 2.1 has no portable way). */
    private static final String WELD_BINDINGS = "org.jboss.weld.interceptor.bindings";

    /** The binding as the container knows it (a stereotype's, an extension's), or {@code null}. */
    private static RateLimited binding(InvocationContext call) {
        try {
            if (call.getContextData().get(WELD_BINDINGS) instanceof Iterable<?> bindings) {
                for (Object b : bindings) {
                    if (b instanceof RateLimited r) {
                        return r;
                    }
                }
            }
        } catch (RuntimeException e) {
            // no context data: the reflective answer stands
        }
        return null;
    }
}
