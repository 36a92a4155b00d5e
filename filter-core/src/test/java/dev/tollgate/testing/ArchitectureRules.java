package dev.tollgate.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.Dependency;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
     * No cycles between rooms. A room is a package, except the API packages {@code dev.tollgate}
     * and {@code dev.tollgate.config}, which count class by class: their values (a {@code Limit}, a
     * {@code Policy}, a {@code RedisSettings}) are words every room speaks, while {@code RateLimiter}
     * and {@code TollgateConfig} wire rooms together; a loop through one class of theirs is still a
     * loop, and is found. A loop among the classes of one API package alone (RateLimiter and its
     * JMX view) stays inside one room and is allowed.
     */
    public static final ArchRule NO_CYCLES = ArchRuleDefinition.classes()
            .that().resideInAPackage("dev.tollgate..")
            .should(formNoCycleBetweenRooms())
            .allowEmptyShould(true);

    private static final Set<String> API_PACKAGES = Set.of("dev.tollgate", "dev.tollgate.config");

    /** The room of a class: its package, or in an API package its top-level class; null outside Tollgate. */
    private static String room(JavaClass c) {
        String pkg = c.getPackageName();
        if (!pkg.equals("dev.tollgate") && !pkg.startsWith("dev.tollgate.")) {
            return null;
        }
        if (!API_PACKAGES.contains(pkg)) {
            return pkg;
        }
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top.getName();
    }

    private static ArchCondition<JavaClass> formNoCycleBetweenRooms() {
        return new ArchCondition<>("form no cycle between rooms (packages; the API packages class by class)") {
            private final Map<String, Set<String>> edges = new TreeMap<>();
            private final Map<String, String> packageOfRoom = new HashMap<>();
            private final Map<String, String> firstDependency = new HashMap<>();

            @Override
            public void init(Collection<JavaClass> all) {
                edges.clear();
                packageOfRoom.clear();
                firstDependency.clear();
            }

            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String from = room(c);
                if (from == null) {
                    return;
                }
                packageOfRoom.put(from, c.getPackageName());
                edges.computeIfAbsent(from, k -> new TreeSet<>());
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    String to = room(d.getTargetClass());
                    if (to == null || to.equals(from)) {
                        continue;
                    }
                    packageOfRoom.put(to, d.getTargetClass().getPackageName());
                    edges.get(from).add(to);
                    firstDependency.putIfAbsent(from + " -> " + to, d.getDescription());
                }
            }

            @Override
            public void finish(ConditionEvents events) {
                for (Set<String> component : new StronglyConnected(edges).components()) {
                    Set<String> packages = new TreeSet<>();
                    component.forEach(r -> packages.add(packageOfRoom.get(r)));
                    if (packages.size() < 2) {
                        continue;
                    }
                    StringBuilder why = new StringBuilder("cycle between " + packages + " through " + component + ":");
                    for (String from : component) {
                        for (String to : edges.getOrDefault(from, Set.of())) {
                            if (component.contains(to)) {
                                why.append(System.lineSeparator()).append("    ").append(firstDependency.get(from + " -> " + to));
                            }
                        }
                    }
                    events.add(SimpleConditionEvent.violated(component, why.toString()));
                }
            }
        };
    }

    /** Tarjan's strongly connected components of a small graph. */
    private static final class StronglyConnected {
        private final Map<String, Set<String>> edges;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new HashSet<>();
        private final List<Set<String>> components = new ArrayList<>();

        StronglyConnected(Map<String, Set<String>> edges) {
            this.edges = edges;
        }

        List<Set<String>> components() {
            for (String v : edges.keySet()) {
                if (!index.containsKey(v)) {
                    visit(v);
                }
            }
            return components;
        }

        private void visit(String v) {
            index.put(v, index.size());
            low.put(v, index.get(v));
            stack.push(v);
            onStack.add(v);
            for (String w : edges.getOrDefault(v, Set.of())) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (onStack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                Set<String> component = new TreeSet<>();
                String w;
                do {
                    w = stack.pop();
                    onStack.remove(w);
                    component.add(w);
                } while (!w.equals(v));
                components.add(component);
            }
        }
    }

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
