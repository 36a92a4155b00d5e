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
}
