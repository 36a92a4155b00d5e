package dev.tollgate.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The architecture of Tollgate as rules (see docs/architecture.md): each module runs them over
 * its own classes ({@code ArchitectureTest} in filter-core, filter-servlet and filter-jaxrs).
 */
public final class ArchitectureRules {

    private ArchitectureRules() {
    }

    /** The production classes of Tollgate on this module's class path (tests left out). */
    public static JavaClasses production() {
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("dev.tollgate");
    }

    /** Jedis stays behind the Redis adapter: nothing outside {@code dev.tollgate.internal.redis} sees it. */
    public static final ArchRule ONLY_THE_REDIS_ROOM_USES_JEDIS = noClasses()
            .that().resideOutsideOfPackage("dev.tollgate.internal.redis..")
            .should().dependOnClassesThat().resideInAPackage("redis.clients..")
            .because("the engine talks to a RedisPort; only the Redis adapter knows Jedis");

    /** The servlet and JAX-RS adapters use the public API alone, as any other integration could. */
    public static final ArchRule ADAPTERS_USE_ONLY_THE_API = noClasses()
            .that().resideInAnyPackage("dev.tollgate.servlet..", "dev.tollgate.jaxrs..")
            .should().dependOnClassesThat().resideInAPackage("dev.tollgate..internal..")
            .because("what an adapter needs, another integration needs too: it belongs to the API");

    /** No public member of a public API type names an internal type. */
    public static final ArchRule API_SIGNATURES_NAME_NO_INTERNAL_TYPE = ArchRuleDefinition.classes()
            .that().resideOutsideOfPackage("dev.tollgate..internal..")
            .should(nameNoInternalTypeInTheirPublicFace())
            .allowEmptyShould(true);

    /**
     * No cycles between the packages under {@code dev.tollgate}, each with its sub-packages one
     * slice ({@code config}, {@code spi}, {@code cdi}, {@code health}, {@code internal}, and in an
     * adapter module {@code servlet} or {@code jaxrs}). The root package, the public face that wires
     * the engine ({@code RateLimiter}), is left out, as Failsafe's and Resilience4j's facades use
     * their engines.
     */
    public static final ArchRule NO_CYCLES = SlicesRuleDefinition.slices()
            .matching("dev.tollgate.(*)..")
            .should().beFreeOfCycles()
            .allowEmptyShould(true);

    /** Nor between the rooms of the engine: each package under {@code dev.tollgate.internal} with its sub-packages. */
    public static final ArchRule NO_CYCLES_INSIDE_THE_ENGINE = SlicesRuleDefinition.slices()
            .matching("dev.tollgate.internal.(*)..")
            .should().beFreeOfCycles()
            .allowEmptyShould(true);

    /**
     * {@code config} is a floor: text in, typed values out; it depends on nothing of the engine.
     * (A string constant that javac copies into config's byte code leaves no trace here:
     * {@code ConfigIsAFloorTest} reads the source for those.)
     */
    public static final ArchRule CONFIG_IS_A_FLOOR = noClasses()
            .that().resideInAPackage("dev.tollgate.config..")
            .should().dependOnClassesThat().resideInAPackage("dev.tollgate.internal..")
            .because("the engine reads the configuration, never the other way round (issue 23)")
            .allowEmptyShould(true);

    private static ArchCondition<JavaClass> nameNoInternalTypeInTheirPublicFace() {
        return new ArchCondition<>("name no internal type in a public signature") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                if (!visible(c)) {
                    return;
                }
                Set<JavaClass> named = new LinkedHashSet<>();
                c.getRawSuperclass().ifPresent(named::add);
                named.addAll(c.getRawInterfaces());
                report(c, c.getName() + " extends or implements", named, events);
                for (JavaMember m : c.getMembers()) {
                    if (!(m.getModifiers().contains(JavaModifier.PUBLIC) || m.getModifiers().contains(JavaModifier.PROTECTED))
                            || m.getModifiers().contains(JavaModifier.SYNTHETIC)) {
                        continue;
                    }
                    Set<JavaClass> types = new LinkedHashSet<>();
                    if (m instanceof JavaField f) {
                        types.addAll(f.getType().getAllInvolvedRawTypes());
                    } else if (m instanceof JavaCodeUnit u) {
                        types.addAll(u.getReturnType().getAllInvolvedRawTypes());
                        for (JavaType t : u.getParameterTypes()) {
                            types.addAll(t.getAllInvolvedRawTypes());
                        }
                        types.addAll(u.getThrowsClause().getTypes());
                    }
                    report(c, m.getFullName(), types, events);
                }
            }
        };
    }

    /** Public, and so is every class it is nested in. */
    private static boolean visible(JavaClass c) {
        for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
            if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }

    private static void report(JavaClass owner, String where, Set<JavaClass> types, ConditionEvents events) {
        for (JavaClass t : types) {
            if (t.getPackageName().contains(".internal")) {
                events.add(SimpleConditionEvent.violated(owner, where + " names the internal type " + t.getName()));
            }
        }
    }
}
