package dev.tollgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code config} and its sub-packages name nothing of {@code dev.tollgate.internal}, read from the
 * source. {@code ArchitectureTest.configIsAFloor} reads byte code, where javac has copied string
 * constants into the caller: a text borrowed from an internal class leaves no trace there, but it
 * does here (the name of the package, or an import of it).
 */
class ConfigIsAFloorTest {

    private static final Path CONFIG = Path.of("src", "main", "java", "dev", "tollgate", "config");

    @Test
    void configSourcesNameNoInternalPackage() throws IOException {
        List<Path> sources;
        try (Stream<Path> files = Files.walk(CONFIG)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertTrue(sources.size() >= 20, "config's sources under " + CONFIG.toAbsolutePath() + ": " + sources);
        assertTrue(sources.stream().anyMatch(p -> p.getParent().getFileName().toString().equals("text")),
                "the sub-packages are read too: " + sources);
        List<String> named = new ArrayList<>();
        for (Path f : sources) {
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains("dev.tollgate.internal")) {
                    named.add(CONFIG.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertEquals(List.of(), named);
    }
}
