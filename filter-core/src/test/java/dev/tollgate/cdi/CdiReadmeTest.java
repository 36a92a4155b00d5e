package dev.tollgate.cdi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's "Limiting CDI methods" shows the example application's code and configuration as
 * they are, which servers-it runs on WildFly and Payara Micro ({@code CdiServiceContract}).
 */
class CdiReadmeTest {

    static final Path ROOT = Path.of("..");
    static final Path SERVICE = ROOT.resolve("examples/jaxrs-app/src/main/java/dev/tollgate/examples/jaxrs/ReportService.java");
    static final Path CONFIG = ROOT.resolve("examples/jaxrs-app/src/main/resources/META-INF/microprofile-config.properties");

    static String section() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int start = readme.indexOf("## Limiting CDI methods\n");
        assertTrue(start >= 0, "the README has a section Limiting CDI methods");
        int end = readme.indexOf("\n## ", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    @Test
    void theSectionShowsTheExampleServiceAsItIs() throws IOException {
        String source = Files.readString(SERVICE);
        String clazz = source.substring(source.indexOf("@ApplicationScoped")).strip();
        assertTrue(section().contains("```java\n" + clazz + "\n```"), "README shows ReportService as in " + SERVICE + ":\n" + clazz);
    }

    @Test
    void theSectionShowsTheExampleConfiguration() throws IOException {
        List<String> config = Files.readAllLines(CONFIG).stream().filter(l -> l.startsWith("tollgate.")).toList();
        assertTrue(!config.isEmpty());
        for (String line : config) {
            assertTrue(section().contains("\n" + line + "\n"), "README shows " + line + " of " + CONFIG);
        }
    }
}
