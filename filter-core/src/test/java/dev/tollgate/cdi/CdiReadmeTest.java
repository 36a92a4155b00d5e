package dev.tollgate.cdi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The manual's page on CDI methods ({@code docs/cdi.md}) shows the example application's code and
 * configuration as they are, which servers-it runs on WildFly and Payara Micro
 * ({@code CdiServiceContract}). The README's quick start shows a shorter version.
 */
class CdiReadmeTest {

    static final Path ROOT = Path.of("..");
    static final Path SERVICE = ROOT.resolve("examples/jaxrs-app/src/main/java/dev/tollgate/examples/jaxrs/ReportService.java");
    static final Path CONFIG = ROOT.resolve("examples/jaxrs-app/src/main/resources/META-INF/microprofile-config.properties");

    static final Path PAGE = ROOT.resolve("docs/cdi.md");

    static String page() throws IOException {
        String page = Files.readString(PAGE);
        assertTrue(page.startsWith("# Limiting CDI methods\n"), PAGE + " is the page on CDI methods");
        return page;
    }

    @Test
    void thePageShowsTheExampleServiceAsItIs() throws IOException {
        String source = Files.readString(SERVICE);
        String clazz = source.substring(source.indexOf("@ApplicationScoped")).strip();
        assertTrue(page().contains("```java\n" + clazz + "\n```"), PAGE + " shows ReportService as in " + SERVICE + ":\n" + clazz);
    }

    @Test
    void thePageShowsTheExampleConfiguration() throws IOException {
        List<String> config = Files.readAllLines(CONFIG).stream().filter(l -> l.startsWith("tollgate.")).toList();
        assertTrue(!config.isEmpty());
        for (String line : config) {
            assertTrue(page().contains("\n" + line + "\n"), PAGE + " shows " + line + " of " + CONFIG);
        }
    }
}
