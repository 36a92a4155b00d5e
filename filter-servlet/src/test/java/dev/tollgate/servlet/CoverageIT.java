package dev.tollgate.servlet;

import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.testing.Coverage;
import dev.tollgate.testing.Coverage.Spelled;
import dev.tollgate.testing.PathVariants;
import dev.tollgate.testing.RawHttp;
import dev.tollgate.testing.Tally;
import dev.tollgate.testing.TestRedis;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Coverage through the servlet filter in a real Tomcat 11 over a real Redis: a policy and a cost
 * hold for every spelling of a request that Tomcat answers from the same servlet.
 *
 * <p>What Tomcat does with each spelling (found by sending them; {@link #whatTomcatServes} keeps
 * the table): it cuts {@code ;parameters} from every segment, merges {@code //}, resolves
 * {@code .}, {@code ..} and their encoded forms {@code %2E}, decodes {@code %XX}, and rejects
 * {@code %2F}, {@code %5C} and {@code %00} with 400, all before {@code getServletPath()} and
 * {@code getPathInfo()} (which the filter reads). A trailing slash stays in {@code getPathInfo()}
 * and reaches a prefix-mapped servlet ({@code /api/files/*}); an exact mapping
 * ({@code /api/report}) answers it 404. {@code %3B} is decoded to a literal {@code ;} in the path
 * (not a parameter): an exact mapping answers 404, a prefix mapping sees {@code ;} in its path
 * info. {@code HttpServlet} answers {@code HEAD} with {@code doGet}; a method in lower case
 * ({@code get}) is answered 501.
 */
class CoverageIT {

    private static EmbeddedTomcat tomcat;
    private static final AtomicInteger CLIENTS = new AtomicInteger();
    private static final String RUN = UUID.randomUUID().toString();

    /** A servlet as applications write them: doGet only; it names itself in a header. */
    static final class Named extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final String name;

        Named(String name) {
            this.name = name;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setHeader("X-Handler", name);
            resp.setContentType("text/plain");
            resp.getWriter().write(name + " " + req.getPathInfo());
        }
    }

    @BeforeAll
    static void start() throws Exception {
        tomcat = new EmbeddedTomcat(new TollgateFilter(), TollgateFilterIT.params(TestRedis.shared(),
                "tollgate.policies", "report,files",
                "tollgate.policy.report.limits", "2/min",
                "tollgate.policy.report.key", "header:X-Client",
                "tollgate.policy.report.match", "GET /api/report",
                "tollgate.policy.files.limits", "4/min",
                "tollgate.policy.files.key", "header:X-Client",
                "tollgate.policy.files.match", "/api/files/**",
                "tollgate.policy.files.cost", "2 GET /api/files/*, 1"), Map.of(), context -> {
                    Tomcat.addServlet(context, "report", new Named("report"));
                    context.addServletMappingDecoded("/api/report", "report");
                    Tomcat.addServlet(context, "files", new Named("files"));
                    context.addServletMappingDecoded("/api/files/*", "files");
                });
    }

    @AfterAll
    static void stop() throws Exception {
        if (tomcat != null) {
            tomcat.close();
        }
    }


    /**
     * {@code GET /api/report} is limited to 2 a minute; a file costs 2 of 4 a minute. However a
     * client spells the request, and whether it sends GET or HEAD, the third is refused whenever
     * the first two reached the servlet.
     */
    @Test
    void everySpellingTomcatServesFromTheServletIsLimitedAndCharged() {
        Tally tally = new Tally();
        qt(60).forAll(spellings()).checkAssert(r -> {
            String policy = r.handler();
            boolean served;
            try {
                served = Coverage.thirdIsRefused(r, policy, RUN + "-" + CLIENTS.incrementAndGet(), CoverageIT::send);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            tally.count("answered by the servlet", served);
        });
        // a spelling Tomcat answers otherwise (404) has nothing to hold; most must reach the servlet
        tally.atLeast("answered by the servlet", 30);
    }

    static Gen<Spelled> spellings() {
        Gen<List<String>> paths = of(List.of("api", "report"), List.of("api", "files", "a.txt"), List.of("api", "files", "7"));
        return paths.flatMap(path -> of("GET", "HEAD").flatMap(method ->
                PathVariants.sent(path).map(target -> new Spelled(path.get(1), method, target))));
    }

    /** The table behind the class comment: each spelling, and the servlet that answers it or the status. */
    @Test
    void whatTomcatServes() throws Exception {
        String[][] table = {
            {"GET", "/api/report", "report"},
            {"HEAD", "/api/report", "report"},
            {"GET", "/api/report;a=b", "report"},
            {"GET", "/api;v=1/report;", "report"},
            {"GET", "/api/;x/report", "report"},
            {"GET", "//api//report", "report"},
            {"GET", "/api/./report", "report"},
            {"GET", "/api/x/../report", "report"},
            {"GET", "/api/x/..;y/report", "report"},
            {"GET", "/api/%2E/report", "report"},
            {"GET", "/api/x/%2E%2E/report", "report"},
            {"GET", "/api/report/.", "report"},
            {"GET", "/api/rep%6Frt", "report"},
            {"GET", "/api/report/", "404"},
            {"GET", "/api/report%3Ba=b", "404"},
            {"GET", "/api/report%2F", "400"},
            {"GET", "/api/report%5C", "400"},
            {"get", "/api/report", "501"},
            {"GET", "/api/files/a", "files"},
            {"HEAD", "/api/files/a/", "files"},
            {"GET", "/api/files/a//", "files"},
            {"GET", "/api/files/a;v=2", "files"},
            {"GET", "/api/files/a%3Bv=2", "files"},
            {"GET", "/api/files/..", "404"},
        };
        Coverage.checkTable(table, () -> RUN + "-table-" + CLIENTS.incrementAndGet(), h -> h, CoverageIT::send);
    }

    private static RawHttp.Response send(Spelled r, String client) throws IOException {
        return RawHttp.send(tomcat.port(), r.method(), r.target(), "X-Client", client);
    }
}
