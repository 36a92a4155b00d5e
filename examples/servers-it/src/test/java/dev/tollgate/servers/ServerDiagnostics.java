package dev.tollgate.servers;

import java.util.Locale;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Prints how long each test and each test class took, and, when a test or a set-up method fails,
 * the last lines of the log of every server started for that class, so that a CI failure can be
 * understood from the build log alone.
 */
public final class ServerDiagnostics implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ServerDiagnostics.class);
    private static final int TAIL = 80;

    @Override
    public void beforeAll(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NS);
        store.put("classStart", System.nanoTime());
        store.put("firstServer", ServerProcess.launchedCount());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        long t0 = context.getStore(NS).get("classStart", Long.class);
        System.out.printf(Locale.ROOT, "[servers-it] %s: %.2f s in all%n", className(context),
                (System.nanoTime() - t0) / 1e9);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NS).put("testStart", System.nanoTime());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        long t0 = context.getStore(NS).get("testStart", Long.class);
        System.out.printf(Locale.ROOT, "[servers-it] %s.%s: %s in %.2f s%n",
                className(context), context.getRequiredTestMethod().getName(),
                context.getExecutionException().map(e -> e instanceof TestAbortedException ? "skipped" : "FAILED").orElse("passed"),
                (System.nanoTime() - t0) / 1e9);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable t) throws Throwable {
        printLogs(context, t);
        throw t;
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable t) throws Throwable {
        printLogs(context, t);
        throw t;
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable t) throws Throwable {
        if (!(t instanceof TestAbortedException)) { // a skip (no JDK 25) is said once, by the class
            printLogs(context, t);
        }
        throw t;
    }

    private static void printLogs(ExtensionContext context, Throwable t) {
        // From the outermost test class: a @Nested class tests the server its enclosing class started.
        Integer first = null;
        for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
            Integer n = c.getStore(NS).get("firstServer", Integer.class);
            if (n != null) {
                first = n;
            }
        }
        if (first == null) {
            first = 0;
        }
        String where = context.getTestMethod().isPresent()
                ? className(context) + "." + context.getRequiredTestMethod().getName()
                : context.getDisplayName();
        System.out.println("[servers-it] " + where + " failed: " + t);
        for (ServerProcess p : ServerProcess.launchedSince(first)) {
            System.out.println("[servers-it] ----- last " + TAIL + " lines of " + p.title() + " (" + p.logFile() + ") -----");
            System.out.println(p.logTail(TAIL));
            System.out.println("[servers-it] ----- end of " + p.title() + " -----");
        }
    }

    /** "WildFlyIT" or, for a nested class, "WildFlyIT.JaxRsApp". */
    private static String className(ExtensionContext context) {
        Class<?> c = context.getRequiredTestClass();
        String name = c.getSimpleName();
        for (Class<?> outer = c.getEnclosingClass(); outer != null; outer = outer.getEnclosingClass()) {
            name = outer.getSimpleName() + "." + name;
        }
        return name;
    }
}
