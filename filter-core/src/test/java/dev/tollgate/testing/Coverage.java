package dev.tollgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The checks of the adapters' coverage tests (servlet and JAX-RS): a policy holds for every
 * spelling of a request that the server answers from the same handler. Each adapter's test
 * knows its server and which spellings reach which handler; what "held" means is written here once.
 */
public final class Coverage {

    private Coverage() {
    }

    /** A request spelled some way; {@code handler} is what answers its canonical spelling. */
    public record Spelled(String handler, String method, String target) {
    }

    /** Sends a request as a client (the tests key their policies on {@code X-Client}). */
    @FunctionalInterface
    public interface Sender {
        RawHttp.Response send(Spelled request, String client) throws IOException;
    }

    /**
     * Sends {@code r} three times as one new client. When the first answer came from the
     * handler, the first two must be admitted under {@code policy} and the third refused, naming
     * it. Returns whether the handler answered (a spelling the server answers otherwise, 404 say,
     * has nothing to hold).
     */
    public static boolean thirdIsRefused(Spelled r, String policy, String client, Sender sender) throws IOException {
        RawHttp.Response first = sender.send(r, client);
        if (!r.handler().equals(first.header("X-Handler"))) {
            return false;
        }
        assertLimited(first, policy, r);
        assertLimited(sender.send(r, client), policy, r);
        RawHttp.Response third = sender.send(r, client);
        assertEquals(429, third.status(), r + ": the third request is past the limit");
        if (r.method().equals("GET")) { // a HEAD answer has no body
            assertTrue(third.body().contains("\"violated-policies\":[\"" + policy + "\"]"), r + ": " + third.body());
        }
        return true;
    }

    /**
     * Checks a table of {method, target, what answers}: a status (digits), or the handler that must
     * answer, limited under {@code policyOf(handler)}.
     */
    public static void checkTable(String[][] table, Supplier<String> newClient, Function<String, String> policyOf,
                                  Sender sender) throws IOException {
        for (String[] row : table) {
            Spelled r = new Spelled(row[2], row[0], row[1]);
            RawHttp.Response response = sender.send(r, newClient.get());
            if (Character.isDigit(row[2].charAt(0))) {
                assertEquals(Integer.parseInt(row[2]), response.status(), r.toString());
            } else {
                assertEquals(row[2], response.header("X-Handler"), r.toString());
                assertLimited(response, policyOf.apply(row[2]), r);
            }
        }
    }

    /** Admitted, and the {@code RateLimit-Policy} header names {@code policy} first. */
    public static void assertLimited(RawHttp.Response response, String policy, Spelled r) {
        assertEquals(200, response.status(), r.toString());
        String header = response.header("RateLimit-Policy");
        assertNotNull(header, r + ": the policy applied");
        assertTrue(header.startsWith("\"" + policy + "\""), r + ": " + header);
    }
}
