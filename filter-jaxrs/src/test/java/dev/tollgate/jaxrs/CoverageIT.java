package dev.tollgate.jaxrs;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.testing.Coverage;
import dev.tollgate.testing.Coverage.Spelled;
import dev.tollgate.testing.PathVariants;
import dev.tollgate.testing.RawHttp;
import dev.tollgate.testing.Tally;
import dev.tollgate.testing.TestRedis;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Coverage through the JAX-RS filter on Jersey 3.1 in a real Tomcat 11 over a real Redis, in
 * global mode (policies by {@code match}): a policy and a cost hold for every spelling of a
 * request that Jersey answers from the same resource method with the same parameters.
 *
 * <p>What Jersey does with each spelling (found by sending them; {@link #whatJerseyServes} keeps
 * the table): it routes the request URI as sent, not Tomcat's normalised servlet path. It cuts
 * {@code ;matrix} parameters from every segment and ignores a trailing slash ({@code report/},
 * {@code report;a=b}, {@code report/;a=b} all reach {@code @Path("report")}); it matches literal
 * segments of a template undecoded ({@code rep%6Frt} is 404) and decodes template parameters
 * ({@code files/%61} is {@code name=a}, {@code files/a%3Bb} is {@code name=a;b}); it answers
 * {@code //}, {@code .}, {@code ..} and {@code %2E} segments and a doubled trailing slash with
 * 404. {@code UriInfo.getPath()}, which the filter reads, is decoded and keeps the matrix
 * parameters and the trailing slash ({@code report;a=b/}). A {@code HEAD} runs the {@code @GET}
 * method, and the filters see the method as {@code GET}; {@code get} is answered 405.
 */
class CoverageIT {

    private static JerseyOnTomcat jersey;
    private static final AtomicInteger CLIENTS = new AtomicInteger();
    private static final String RUN = UUID.randomUUID().toString();

    @Path("report")
    public static class Report {
        @GET
        public Response get() {
            return Response.ok("report").header("X-Handler", "report").build();
        }
    }

    @Path("files/{name}")
    public static class Files {
        @GET
        public Response get(@PathParam("name") String name) {
            return Response.ok("file " + name).header("X-Handler", "files:" + name).build();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        ResourceConfig rc = new ResourceConfig(Report.class, Files.class, TollgateFeature.class);
        rc.property("tollgate.redis.uri", TestRedis.shared().uri());
        rc.property("tollgate.redis.timeout", "2s");
        rc.property("tollgate.redis.key-prefix", "jaxrs-coverage-" + RUN + ":");
        rc.property("tollgate.jaxrs.global", "true");
        rc.property("tollgate.policies", "report,files");
        rc.property("tollgate.policy.report.limits", "2/min");
        rc.property("tollgate.policy.report.key", "header:X-Client");
        rc.property("tollgate.policy.report.match", "GET /report");
        rc.property("tollgate.policy.files.limits", "4/min");
        rc.property("tollgate.policy.files.key", "header:X-Client");
        rc.property("tollgate.policy.files.match", "/files/**");
        rc.property("tollgate.policy.files.cost", "2 GET /files/*, 1");
        jersey = new JerseyOnTomcat(rc);
    }

    @AfterAll
    static void stop() throws Exception {
        if (jersey != null) {
            jersey.close();
        }
    }


    /**
     * {@code GET /report} is limited to 2 a minute; a file costs 2 of 4 a minute. However a
     * client spells the request, and whether it sends GET or HEAD, the third is refused whenever
     * the first two reached the resource method with the same parameters.
     */
    @Test
    void everySpellingJerseyServesFromTheResourceIsLimitedAndCharged() {
        Tally tally = new Tally();
        qt(60).forAll(spellings()).checkAssert(r -> {
            String policy = r.handler().startsWith("files") ? "files" : r.handler();
            boolean served;
            try {
                served = Coverage.thirdIsRefused(r, policy, RUN + "-" + CLIENTS.incrementAndGet(), CoverageIT::send);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            tally.count("answered by the resource", served);
        });
        // a spelling Jersey answers otherwise (404) has nothing to hold; most must reach the resource
        tally.atLeast("answered by the resource", 30);
    }

    static Gen<Spelled> spellings() {
        // ".." is a file name to Jersey: it routes files/.. to files/{name}
        Gen<List<String>> paths = of(List.of("report"), List.of("files", "a.txt"), List.of("files", "7"),
                List.of("files", ".."));
        return paths.flatMap(path -> of("GET", "HEAD").flatMap(method -> {
            String handler = path.size() == 1 ? "report" : "files:" + path.get(1);
            List<String> whole = new java.util.ArrayList<>(List.of("api"));
            whole.addAll(path);
            // mostly what Jersey routes like the path; sometimes any spelling, which it may answer 404
            Gen<String> targets = frequency(weight(3, PathVariants.matrix("/api", path, 1)), weight(1, PathVariants.sent(whole)));
            return targets.map(target -> new Spelled(handler, method, target));
        }));
    }

    /** The table behind the class comment: each spelling, and what answers it or the status. */
    @Test
    void whatJerseyServes() throws Exception {
        String[][] table = {
            {"GET", "/api/report", "report"},
            {"HEAD", "/api/report", "report"},
            {"GET", "/api/report/", "report"},
            {"GET", "/api/report;a=b", "report"},
            {"GET", "/api/report;a=b/", "report"},
            {"GET", "/api/report/;a=b", "report"},
            {"GET", "/api/report;", "report"},
            {"HEAD", "/api/files/a;v=1", "files:a"},
            {"GET", "/api/files/a/", "files:a"},
            {"GET", "/api/files/%61", "files:a"},
            {"GET", "/api/files/a%3Bb", "files:a;b"},
            {"GET", "/api/files/..", "files:.."},
            {"HEAD", "/api/files/%2E%2E;x/", "files:.."},
            {"GET", "/api/files/.", "files:."},
            {"GET", "/api//report", "404"},
            {"GET", "/api/./report", "404"},
            {"GET", "/api/x/../report", "404"},
            {"GET", "/api/%2E/report", "404"},
            {"GET", "/api/rep%6Frt", "404"},
            {"GET", "/api/report%3Ba=b", "404"},
            {"GET", "/api/report//", "404"},
            {"GET", "/api;x=1/report", "404"},
            {"GET", "/api/report%2F", "400"},
            {"get", "/api/report", "405"},
        };
        Coverage.checkTable(table, () -> RUN + "-table-" + CLIENTS.incrementAndGet(), h -> h.startsWith("files") ? "files" : h, CoverageIT::send);
    }

    private static RawHttp.Response send(Spelled r, String client) throws IOException {
        return RawHttp.send(jersey.port(), r.method(), r.target(), "X-Client", client);
    }
}
