package dev.tollgate.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * An integration test that times Tollgate against a latency budget on the wall clock (a decision
 * within 400 ms while Redis is 80 ms away, calls failing within their budget while a master dies).
 * Its slack is tens of milliseconds, which a test busy beside it on a two-core machine can take.
 * filter-core runs its other integration tests in two JVMs at once; the classes marked with this
 * run afterwards, one at a time (the failsafe execution {@code alone} in filter-core's pom).
 */
@Tag("alone")
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Alone {
}
