package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.testing.HostileValues;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/** Hostile requests for the engine, and what must hold whatever they carry. Shared by the in-memory and Redis tests. */
final class HostileRequests {

    /** A client part as {@link BucketKeys#client} makes it: plain or percent-encoded and at most 120 long, or hashed. */
    static final Pattern CLIENT = Pattern.compile("[A-Za-z0-9._:/@+=~%-]{1,120}|#[A-Za-z0-9_-]{22}");

    private HostileRequests() {
    }

    static TollgateConfig config(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return TestConfigs.withProviders(m);
    }

    /**
     * A request whose every client-controlled part is hostile: method, path, route, forwarding
     * headers (the peer is usually a trusted proxy, so they are parsed), the API key and plan
     * headers, the principal and its roles.
     */
    static TestRequest next(HostileValues h) {
        Random r = h.random();
        TestRequest t = new TestRequest().method(h.method()).path(h.path());
        int route = r.nextInt(4);
        t.route(route == 0 ? null : route == 1 ? "/api/*" : h.next());
        int peer = r.nextInt(12);
        t.from(peer < 6 ? "10.1.2." + r.nextInt(256) : peer == 6 ? "127.0.0.1" : peer == 7 ? "::1"
                : peer == 8 ? h.address() : peer == 9 ? null : peer == 10 ? "192.0.2.9" : h.next());
        for (int i = r.nextInt(3); i > 0; i--) {
            t.header("X-Forwarded-For", h.forwardingHeader(false));
        }
        for (int i = r.nextInt(3); i > 0; i--) {
            t.header("Forwarded", h.forwardingHeader(true));
        }
        if (r.nextInt(3) > 0) {
            t.header("X-Api-Key", h.next());
        }
        if (r.nextInt(3) == 0) {
            t.header("X-Plan", r.nextBoolean() ? "gold" : h.next());
        }
        int user = r.nextInt(10);
        if (user < 6) {
            String[] roles = new String[r.nextInt(4)];
            for (int i = 0; i < roles.length; i++) {
                roles[i] = r.nextInt(4) == 0 ? (r.nextBoolean() ? "gold" : "internal") : h.next();
            }
            try {
                t.user(user == 0 ? "monitor" : h.next(), roles);
            } catch (IllegalArgumentException duplicateRole) {
                t.user(h.next());
            }
        }
        return t;
    }

    /** A decision and the HTTP answer made of it. */
    record Answered(Decision decision, HttpAnswer answer) {
    }

    /** Decides and answers a request; anything thrown fails the test, saying which request. */
    static Answered checkAndAnswer(RateLimiter limiter, TestRequest t, Supplier<String> where) {
        try {
            Decision d = limiter.check(t);
            return new Answered(d, limiter.answer(d));
        } catch (RuntimeException | Error e) {
            throw new AssertionError(where.get() + " threw", e);
        }
    }

    /** Checks one decision and its HTTP answer; returns the storage keys it names. */
    static List<String> assertSafe(RateLimiter limiter, Decision d, HttpAnswer a, Supplier<String> where) {
        String prefix = limiter.config().store().keyPrefix();
        List<String> keys = new ArrayList<>(d.results().size());
        for (PolicyResult r : d.results()) {
            String client = r.clientKey();
            if (client == null || !CLIENT.matcher(client).matches()) {
                fail(where.get() + ": client key of policy " + r.policy().name() + " is not safe for storage: '" + client + "'");
            }
            String namespace = BucketKeys.namespace(limiter.config().namespace().value());
            String key = BucketKeys.key(prefix, namespace, r.policy().name(), client, r.policy().algorithm());
            // 8: ":" after the namespace, "{}:" and ":log"
            int bound = prefix.length() + namespace.length() + BucketKeys.MAX_CLIENT + r.policy().name().length() + 8;
            if (key.length() > bound || count(key, '{') != 1 || count(key, '}') != 1) {
                fail(where.get() + ": storage key " + key.length() + " long (bound " + bound + ") or with stray braces: " + key);
            }
            keys.add(key);
        }
        for (HttpAnswer.Header h : a.headers()) {
            if (!printableAscii(h.name()) || !printableAscii(h.value())) {
                fail(where.get() + ": response header is not printable ASCII: " + h);
            }
        }
        if (a.body() != null && !printableAscii(a.body())) {
            fail(where.get() + ": body is not printable ASCII: " + a.body());
        }
        if (d.verdict() == Decision.Verdict.DENY) {
            assertEquals(429, a.status(), where);
            assertTrue(a.headers().stream().anyMatch(h -> h.name().equals("Retry-After") && Long.parseLong(h.value()) >= 1), where);
        }
        return keys;
    }

    static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                n++;
            }
        }
        return n;
    }

    static boolean printableAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** A short, printable description of a request for a failure message. */
    static String describe(TestRequest t) {
        return "method=" + clip(t.method()) + " path=" + clip(t.path()) + " route=" + clip(t.route())
                + " peer=" + clip(t.remoteAddress()) + " xff=" + clip(String.valueOf(t.headers("X-Forwarded-For")))
                + " forwarded=" + clip(String.valueOf(t.headers("Forwarded"))) + " key=" + clip(t.header("X-Api-Key"))
                + " principal=" + clip(t.principal());
    }

    private static String clip(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && i < 60; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return s.length() > 60 ? sb + "...(" + s.length() + " chars)" : sb.toString();
    }

    /**
     * Captures Tollgate's log while a test runs: {@code check} swallows internal errors (logging
     * {@code TOLLGATE-090}) and lets the request through, so "nothing was thrown" alone proves
     * little. Refusal lines ({@code dev.tollgate.decision}) are counted and checked, not printed.
     */
    static final class LogCapture extends Handler implements AutoCloseable {
        private final Logger root = Logger.getLogger("dev.tollgate");
        private final Logger decisions = Logger.getLogger("dev.tollgate.decision");
        private final boolean decisionsToParent = decisions.getUseParentHandlers();
        final List<LogRecord> problems = Collections.synchronizedList(new ArrayList<>());
        final List<String> unprintable = Collections.synchronizedList(new ArrayList<>());
        volatile int refusalLines;

        LogCapture() {
            setLevel(Level.ALL);
            root.addHandler(this);
            // refusal lines stay out of the console (a flood of clients makes many), but are still seen here
            decisions.addHandler(this);
            decisions.setUseParentHandlers(false);
        }

        @Override
        public void publish(LogRecord r) {
            String message = r.getMessage();
            if (r.getLoggerName().equals("dev.tollgate.decision")) {
                refusalLines++;
            }
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                problems.add(r);
            }
            if (message != null && !printableAscii(message.replace("µ", "")) && unprintable.size() < 10) {
                unprintable.add(message);
            }
        }

        /** Fails listing the first problems, if any. */
        void assertClean() {
            if (!problems.isEmpty()) {
                StringBuilder sb = new StringBuilder(problems.size() + " warnings or errors logged, e.g.:");
                for (LogRecord r : problems.subList(0, Math.min(5, problems.size()))) {
                    sb.append("\n  ").append(r.getLevel()).append(' ').append(r.getMessage())
                            .append(r.getThrown() == null ? "" : " " + r.getThrown());
                }
                fail(sb.toString());
            }
            if (!unprintable.isEmpty()) {
                fail("log messages with control or non-ASCII characters (log injection): " + unprintable);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            root.removeHandler(this);
            decisions.removeHandler(this);
            decisions.setUseParentHandlers(decisionsToParent);
        }
    }
}
