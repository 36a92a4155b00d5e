package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The edges from {@code dev.tollgate.config} into {@code internal}, read from the source, are
 * exactly those docs/architecture.md lists and explains. The cycle rule ({@code ArchitectureTest})
 * reads byte code, where javac has copied string constants into the caller: a text borrowed from
 * an internal class leaves no trace there, but it does here.
 */
class ConfigEdgesTest {

    private static final Path CONFIG = Path.of("src", "main", "java", "dev", "tollgate", "config");
    private static final Path ARCHITECTURE = Path.of("..", "docs", "architecture.md");
    private static final String SECTION = "## Where `config` still reaches into `internal`, and why";
    private static final Pattern INTERNAL_NAME = Pattern.compile("dev\\.tollgate\\.(internal(?:\\.[a-z]+)*\\.[A-Z]\\w*)");
    private static final Pattern BULLET = Pattern.compile("^- (.+?) → `([\\w.]+)`");
    private static final Pattern TICKED = Pattern.compile("`(\\w+)`");

    @Test
    void configNamesOnlyTheInternalClassesTheArchitectureNoteExplains() throws IOException {
        Set<String> inSource = new TreeSet<>();
        try (Stream<Path> files = Files.list(CONFIG)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String from = f.getFileName().toString().replace(".java", "");
                Matcher m = INTERNAL_NAME.matcher(Files.readString(f));
                while (m.find()) {
                    inSource.add(from + " -> " + m.group(1));
                }
            }
        }
        assertFalse(inSource.isEmpty(), "no config source found under " + CONFIG.toAbsolutePath());
        assertEquals(documented(), inSource);
    }

    private static Set<String> documented() throws IOException {
        List<String> lines = Files.readAllLines(ARCHITECTURE);
        Set<String> edges = new TreeSet<>();
        int start = lines.indexOf(SECTION);
        for (int i = start + 1; start >= 0 && i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            Matcher bullet = BULLET.matcher(lines.get(i));
            if (bullet.find()) {
                Matcher from = TICKED.matcher(bullet.group(1));
                while (from.find()) {
                    edges.add(from.group(1) + " -> " + bullet.group(2));
                }
            }
        }
        return edges;
    }
}
