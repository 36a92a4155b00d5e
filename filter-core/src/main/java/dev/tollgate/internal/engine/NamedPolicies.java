package dev.tollgate.internal.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The policies that code of one application names where it limits ({@code @RateLimited} on a CDI
 * bean, on a JAX-RS resource), as the limiters of that application see them: they apply such a
 * policy by {@code match} only when it has a match of its own ({@link RequestPlanner#matching}).
 *
 * <p>The integrations that find those annotations declare them ({@link #declare}: the CDI
 * extension at deployment, the JAX-RS feature as it configures resources) under the class loader
 * of the application, the one that loads its code. A limiter made for an application loader sees
 * what was declared under that loader and under its ancestors, whose code the application's
 * sees too (an EAR's, or a process's that runs CDI and an embedded servlet container), never
 * under another application's: two applications of one server naming the same policy do not
 * meet, even when Tollgate is a library of the server. Declarations are kept while their class
 * loader lives, or until withdrawn. Thread-safe.
 */
public final class NamedPolicies {

    /** The declarations under each class loader (the {@code null} key: the bootstrap loader's). */
    private static final Map<ClassLoader, Declared> BY_LOADER = new WeakHashMap<>();
    /** Changes at every declaration and withdrawal, after it: a view whose names are older computes them again. */
    private static volatile long version;

    /** Sees nothing: the limiters made without an application (tests). */
    public static final NamedPolicies NONE = new NamedPolicies(List.of());

    /** The declarations under one loader, the loader itself not referenced. Guarded by {@link #BY_LOADER}. */
    private static final class Declared {
        final Map<String, Integer> counts = new HashMap<>();
    }

    private record Seen(long version, Set<String> names) {
    }

    /** The application loader's declarations and its ancestors'. */
    private final List<Declared> chain;
    /** The names last computed and the version they were computed at; published whole, read without a lock. */
    private volatile Seen seen = new Seen(-1, Set.of());

    private NamedPolicies(List<Declared> chain) {
        this.chain = chain;
    }

    /** What the limiters of the application of that class loader see. */
    public static NamedPolicies of(ClassLoader application) {
        List<Declared> chain = new ArrayList<>();
        synchronized (BY_LOADER) {
            ClassLoader l = application;
            while (true) {
                chain.add(declared(l));
                if (l == null) {
                    break;
                }
                l = l.getParent();
            }
        }
        return new NamedPolicies(List.copyOf(chain));
    }

    private static Declared declared(ClassLoader loader) {
        return BY_LOADER.computeIfAbsent(loader, l -> new Declared());
    }

    /**
     * Declares that code loaded by {@code application} names {@code policies}, until the
     * returned action withdraws them (once; later runs do nothing). Two declarations of one name
     * need both withdrawn.
     */
    public static Runnable declare(ClassLoader application, Collection<String> policies) {
        List<String> names = List.copyOf(policies);
        if (names.isEmpty()) {
            return () -> { };
        }
        Declared d;
        synchronized (BY_LOADER) {
            d = declared(application);
            names.forEach(n -> d.counts.merge(n, 1, Integer::sum));
            version++;
        }
        AtomicBoolean withdrawn = new AtomicBoolean();
        return () -> {
            if (withdrawn.compareAndSet(false, true)) {
                synchronized (BY_LOADER) {
                    names.forEach(n -> d.counts.computeIfPresent(n, (k, c) -> c == 1 ? null : c - 1));
                    version++;
                }
            }
        };
    }

    /** The policies named now; on most calls one volatile read more than the last answer. */
    public Set<String> names() {
        long v = version;
        Seen s = seen;
        if (s.version() == v || chain.isEmpty()) {
            return s.names();
        }
        Set<String> names = new HashSet<>();
        synchronized (BY_LOADER) {
            v = version;
            chain.forEach(d -> names.addAll(d.counts.keySet()));
        }
        s = new Seen(v, Set.copyOf(names));
        seen = s;
        return s.names();
    }
}
