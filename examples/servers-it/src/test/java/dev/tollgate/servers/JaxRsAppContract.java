package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JAX-RS example ({@code examples/jaxrs-app}, or {@code jaxrs-app-tomcat} on Tomcat) on a
 * server's main start: besides what every application must do ({@code GET /api/hello} is
 * {@code @RateLimited("default")} and carries that policy only), {@code @RateLimited} selects the
 * policies of each method, keys use the route template, and the operator's environment wins over
 * the application's {@code microprofile-config.properties}:
 *
 * <ul>
 *   <li>{@code GET /api/users/{id}}: {@code @RateLimited({"default", "per-route"})}, per-route keyed
 *       {@code ip+route}, {@code 4/min} from {@code TOLLGATE_POLICY_PER_ROUTE_LIMITS} (the
 *       application says {@code 20/min});</li>
 *   <li>{@code POST /api/login}: {@code @RateLimited("login")}, {@code 3/min} from
 *       {@code TOLLGATE_POLICY_LOGIN_LIMITS} (the application says {@code 5/min}); 401 for wrong
 *       credentials, 200 for demo/demo.</li>
 * </ul>
 *
 * Every limit here refills slowly (a token each 15 s for per-route, 20 s for login), so the bounds
 * allow one more request per refill period the requests took: a loaded machine may be slow.
 */
public abstract class JaxRsAppContract extends RateLimitedAppContract {

    /** 6 tokens at 3/s, then 4 tokens in 60 s. */
    static final String USERS_POLICY_HEADER = POLICY_HEADER + ", \"per-route\";q=4;w=60";
    /** 3 tokens in 60 s: the environment's 3/min, not the application's 5/min (q=5). */
    static final String LOGIN_POLICY_HEADER = "\"login\";q=3;w=60";
    private static final Pattern USERS_STATE = Pattern.compile("\"default\";r=(\\d+);t=\\d+, \"per-route\";r=(\\d+);t=(\\d+)");
    private static final Pattern LOGIN_STATE = Pattern.compile("\"login\";r=(\\d+);t=(\\d+)");
    private static final int PER_ROUTE_BURST = 4;
    private static final double PER_ROUTE_SECONDS_PER_TOKEN = 15.0;
    private static final int LOGIN_BURST = 3;
    private static final double LOGIN_SECONDS_PER_TOKEN = 20.0;
    private static final String WRONG = "user=demo&password=wrong";
    private static final String RIGHT = "user=demo&password=demo";

    protected JaxRsAppContract(ServerContract on, App app) {
        super(on, app);
    }

    @Override
    protected boolean isStartLineOfThisApp(String line) {
        return line.contains("policy login [");
    }

    /** All three policies, each with the operator's limits where the operator set them. */
    @Override
    protected List<String> expectedInStartLine() {
        List<String> expected = new ArrayList<>(super.expectedInStartLine());
        expected.add("policy per-route [enforce, limits [" + ServerContract.PER_ROUTE_LIMITS + "], key ip+route,");
        expected.add("policy login [enforce, limits [" + ServerContract.LOGIN_LIMITS + "], key ip,");
        return expected;
    }

    @Test
    void aMethodWithTwoPoliciesCarriesBothAndOnlyThose() {
        HttpResponse<String> r = get("/api/users/1");
        assertEquals(200, r.statusCode(), () -> "status; body: " + r.body());
        assertEquals("user 1", r.body().strip());
        // per-route q=4: TOLLGATE_POLICY_PER_ROUTE_LIMITS won over the application's 20/min (q=20)
        assertEquals(List.of(USERS_POLICY_HEADER), r.headers().allValues("RateLimit-Policy"));
        Matcher m = USERS_STATE.matcher(header(r, "RateLimit"));
        assertTrue(m.matches(), () -> "RateLimit: " + header(r, "RateLimit"));
        assertEquals("5", m.group(1), "default: one of six tokens spent");
        assertEquals("3", m.group(2), "per-route: one of four tokens spent");
    }

    /**
     * {@code /users/1}, {@code /users/2}, ... are one route, {@code /users/{id}}, so one bucket: the
     * fifth distinct id is refused by {@code per-route} (4/min), while {@code default} (burst 6)
     * would still let it pass. The bucket's key is the template, percent-encoded, next to the
     * client's address: the address must have been found (RemoteAddressFilter), else it would
     * read {@code ip=unknown}.
     */
    @Test
    void distinctIdsShareTheRouteTemplatesBucket() {
        List<HttpResponse<String>> answers = new ArrayList<>();
        long t0 = System.nanoTime();
        HttpResponse<String> refusal = null;
        for (int id = 1; id <= 8 && refusal == null; id++) {
            HttpResponse<String> r = get("/api/users/" + id);
            answers.add(r);
            if (r.statusCode() == 429) {
                refusal = r;
            } else if (r.statusCode() != 200) {
                fail("/api/users/" + id + " got " + r.statusCode() + ": " + r.body());
            }
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        int allowed = answers.size() - (refusal == null ? 0 : 1);
        int mostAllowed = PER_ROUTE_BURST + (int) Math.floor(elapsed / PER_ROUTE_SECONDS_PER_TOKEN);
        System.out.printf(Locale.ROOT, "[servers-it] %s: /api/users/1, /2, ...: %d allowed in %.3f s (at most %d may be)%n",
                server().title(), allowed, elapsed, mostAllowed);
        assertTrue(allowed >= PER_ROUTE_BURST, "the first " + PER_ROUTE_BURST + " must pass, " + allowed + " did");
        assertTrue(allowed <= mostAllowed, allowed + " allowed in " + elapsed + " s; at most " + mostAllowed);
        assertTrue(refusal != null, "no request was refused");
        assertRefusal(refusal, "per-route", USERS_POLICY_HEADER);
        assertTrue(refusal.body().contains("Rate limit of policy 'per-route' exceeded"), refusal.body());
        System.out.println("[servers-it] " + server().title() + ": the refusal of /api/users/" + answers.size() + ": "
                + refusal.headers().map() + " " + refusal.body());

        // A key lives until its bucket is full again: per-route's for a minute, default's for about a
        // second (so on a slow machine it may be gone already).
        String prefix = expectedKeyPrefix();
        String perRoute = prefix + app.keyNamespace() + "{ip=127.0.0.1+route=/users/%7Bid%7D}:per-route";
        List<String> keys = keys(prefix);
        System.out.println("[servers-it] " + server().title() + ": Redis keys: " + keys);
        assertTrue(keys.contains(perRoute), () -> "one per-route bucket for every id, keyed by the template: " + perRoute
                + " in " + keys);
        keys.remove(perRoute);
        keys.remove(prefix + app.keyNamespace() + "{ip=127.0.0.1}:default");
        assertEquals(List.of(), keys, "no other bucket");
    }

    @Test
    void theRightPasswordIsWelcomeAndCarriesTheLoginPolicyOnly() {
        HttpResponse<String> r = server().postForm(app.deployment(), "/api/login", RIGHT);
        assertEquals(200, r.statusCode(), () -> "status; body: " + r.body());
        assertEquals("welcome", r.body().strip());
        assertEquals(List.of(LOGIN_POLICY_HEADER), r.headers().allValues("RateLimit-Policy"));
        assertEquals("2", loginRemaining(r));
    }

    /**
     * Wrong passwords take tokens like any request (Tollgate decides before the resource runs),
     * so after three wrong attempts the right password is refused too. The environment's 3/min
     * won over the application's 5/min.
     */
    @Test
    void failedLoginsAreCountedAndTheFourthAttemptIsRefusedEvenWithTheRightPassword() {
        List<HttpResponse<String>> wrong = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < LOGIN_BURST; i++) {
            wrong.add(server().postForm(app.deployment(), "/api/login", WRONG));
        }
        HttpResponse<String> fourth = server().postForm(app.deployment(), "/api/login", RIGHT);
        double elapsed = (System.nanoTime() - t0) / 1e9;

        for (int i = 0; i < LOGIN_BURST; i++) {
            HttpResponse<String> r = wrong.get(i);
            assertEquals(401, r.statusCode(), "wrong password " + (i + 1) + ": " + r.body());
            assertEquals(List.of(LOGIN_POLICY_HEADER), r.headers().allValues("RateLimit-Policy"),
                    "a 401 from the resource carries the headers too");
        }
        // If the four requests took a refill period (20 s, only on a very loaded machine), a
        // token came back and the right password may pass; that is the limit working too.
        int refills = (int) Math.floor(elapsed / LOGIN_SECONDS_PER_TOKEN);
        System.out.printf(Locale.ROOT, "[servers-it] %s: 3 wrong passwords and the right one in %.3f s: %d, %d, %d, %d%n",
                server().title(), elapsed, wrong.get(0).statusCode(), wrong.get(1).statusCode(), wrong.get(2).statusCode(),
                fourth.statusCode());
        if (refills == 0 || fourth.statusCode() == 429) {
            assertRefusal(fourth, "login", LOGIN_POLICY_HEADER);
            assertEquals("0", loginRemaining(fourth));
        } else {
            assertEquals(200, fourth.statusCode(), fourth.body());
        }
        String prefix = expectedKeyPrefix();
        assertEquals(List.of(prefix + app.keyNamespace() + "{ip=127.0.0.1}:login"), keys(prefix));
    }

    /** r of the RateLimit header of the login resource. */
    private static String loginRemaining(HttpResponse<String> r) {
        Matcher m = LOGIN_STATE.matcher(header(r, "RateLimit"));
        assertTrue(m.matches(), () -> "RateLimit: " + header(r, "RateLimit"));
        return m.group(1);
    }
}
