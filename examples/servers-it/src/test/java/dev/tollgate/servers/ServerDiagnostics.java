package dev.tollgate.servers;

import java.util.Locale;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

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
        System.out.printf(Locale.ROOT, "[servers-it] %s: %.2f s in all%n", context.getDisplayName(),
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
                context.getRequiredTestClass().getSimpleName(), context.getRequiredTestMethod().getName(),
                context.getExecutionException().isPresent() ? "FAILED" : "passed", (System.nanoTime() - t0) / 1e9);
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
        printLogs(context, t);
        throw t;
    }

    private static void printLogs(ExtensionContext context, Throwable t) {
        Integer first = context.getStore(NS).get("firstServer", Integer.class);
        if (first == null) {
            first = 0;
        }
        String where = context.getTestMethod().isPresent()
                ? context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName()
                : context.getDisplayName();
        System.out.println("[servers-it] " + where + " failed: " + t);
        for (ServerProcess p : ServerProcess.launchedSince(first)) {
            System.out.println("[servers-it] ----- last " + TAIL + " lines of " + p.title() + " (" + p.logFile() + ") -----");
            System.out.println(p.logTail(TAIL));
            System.out.println("[servers-it] ----- end of " + p.title() + " -----");
        }
    }
}
