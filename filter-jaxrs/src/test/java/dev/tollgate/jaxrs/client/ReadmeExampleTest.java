package dev.tollgate.jaxrs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's section "Limiting outbound calls" shows {@link ReadmeExample}'s code, line for line. */
class ReadmeExampleTest {

    static final Path README = Path.of("..", "README.md");
    static final Path EXAMPLE = Path.of("src", "test", "java", "dev", "tollgate", "jaxrs", "client", "ReadmeExample.java");

    /** The README's java blocks in the section, each as trimmed lines. */
    static List<List<String>> readmeBlocks() throws IOException {
        List<List<String>> blocks = new ArrayList<>();
        boolean inSection = false;
        List<String> block = null;
        for (String line : Files.readAllLines(README)) {
            if (line.startsWith("## ")) {
                inSection = line.equals("## Limiting outbound calls");
            } else if (inSection && line.equals("```java")) {
                block = new ArrayList<>();
            } else if (block != null && line.equals("```")) {
                blocks.add(block);
                block = null;
            } else if (block != null) {
                block.add(line.trim());
            }
        }
        return blocks;
    }

    /** The example's marked parts, each as trimmed lines. */
    static List<List<String>> exampleParts() throws IOException {
        List<List<String>> parts = new ArrayList<>();
        List<String> part = null;
        for (String line : Files.readAllLines(EXAMPLE)) {
            String t = line.trim();
            if (t.startsWith("// README begin")) {
                part = new ArrayList<>();
            } else if (t.equals("// README end")) {
                parts.add(part);
                part = null;
            } else if (part != null) {
                part.add(t);
            }
        }
        return parts;
    }

    @Test
    void theReadmeShowsTheExampleThatOutboundITRuns() throws IOException {
        List<List<String>> readme = readmeBlocks();
        List<List<String>> example = exampleParts();
        assertEquals(2, example.size(), "two marked parts in " + EXAMPLE);
        assertTrue(readme.size() >= 2, "the README section has the two java blocks: " + readme);
        assertEquals(example.get(0), readme.get(0));
        assertEquals(example.get(1), readme.get(1));
    }
}
