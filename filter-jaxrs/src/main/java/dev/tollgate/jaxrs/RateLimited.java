package dev.tollgate.jaxrs;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a resource method (or every method of a resource class) with the named policies,
 * whatever their {@code match} says. A method's annotation replaces its class's.
 *
 * <pre>{@code
 * @GET @Path("/users/{id}")
 * @RateLimited({"api", "per-user"})
 * public User user(@PathParam("id") long id) { ... }
 * }</pre>
 *
 * <p>Each name must be declared in {@code tollgate.policies}; an unknown name stops the
 * application at deployment with message {@code TOLLGATE-003}. {@link TollgateFeature} must be
 * registered (it is a {@code @Provider}, so class-path scanning finds it).
 */
@NameBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RateLimited {

    /** The policies, by name. */
    String[] value();

    /**
     * Tokens one request to this resource takes from each named policy (an export may cost 10),
     * instead of what the policies' {@code cost} says; {@code 0} (the default) keeps theirs. A
     * cost above a policy's smallest burst fails the deployment.
     */
    long cost() default 0;
}
