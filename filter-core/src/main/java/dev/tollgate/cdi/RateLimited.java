package dev.tollgate.cdi;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a CDI bean method (or every business method of a bean class) with the named policies:
 * each call is one request to them, refused with a {@link RateLimitExceededException}. A method's
 * annotation replaces its class's. Works on any bean (a service called from a resource, a JMS
 * listener, a scheduled job), with the same policies, stores and guarantees as the filters.
 *
 * <pre>{@code
 * @ApplicationScoped
 * public class ReportService {
 *     @RateLimited("exports")
 *     public Report export(@RateLimitKey String tenant) { ... }
 * }
 * }</pre>
 *
 * <p>The client key: the values of the {@link RateLimitKey} parameters when there are some;
 * else the current HTTP request's client, found as the filters find it (the policy's {@code key});
 * else, with no HTTP request (a JMS listener, {@code @Schedule}, a thread of its own), one key
 * shared by every caller of the method. See {@link RateLimitKey}.
 *
 * <p>Not {@code dev.tollgate.jaxrs.RateLimited}: that one is a JAX-RS name binding for resource
 * methods, decided by the JAX-RS filters before the resource runs, keyed by the HTTP request. Use
 * this one on bean methods, or where the key is an argument. A policy already decided for the
 * current HTTP request by a Tollgate filter (servlet or JAX-RS) is not counted again by the
 * interceptor, so a resource that is also a bean and carries both is counted once.
 *
 * <p>Each name must be declared in {@code tollgate.policies}: an unknown name fails the
 * deployment (message {@code TOLLGATE-003}). Enabled without {@code beans.xml} (the interceptor
 * has a {@code @Priority}).
 */
@Inherited
@InterceptorBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RateLimited {

    /** The policies, by name. */
    @Nonbinding
    String[] value();

    /**
     * Tokens one call takes from each named policy, instead of what the policies' {@code cost}
     * says; {@code 0} (the default) keeps theirs. A cost above a policy's smallest burst fails the
     * deployment.
     */
    @Nonbinding
    long cost() default 0;
}
