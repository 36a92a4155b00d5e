package dev.tollgate.jaxrs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The manual's page on outbound calls ({@code docs/outbound.md}) shows {@link ReadmeExample}'s code, line for line. */
class ReadmeExampleTest {

    static final Path PAGE = Path.of("..", "docs", "outbound.md");
    static final Path EXAMPLE = Path.of("src", "test", "java", "dev", "tollgate", "jaxrs", "client", "ReadmeExample.java");

    /** The page's java blocks, each as trimmed lines. */
    static List<List<String>> pageBlocks() throws IOException {
        List<List<String>> blocks = new ArrayList<>();
        List<String> block = null;
        List<String> lines = Files.readAllLines(PAGE);
        assertEquals("# Limiting outbound calls", lines.get(0), PAGE + " is the page on outbound calls");
        for (String line : lines) {
            if (line.equals("```java")) {
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
    void thePageShowsTheExampleThatOutboundITRuns() throws IOException {
        List<List<String>> page = pageBlocks();
        List<List<String>> example = exampleParts();
        assertEquals(2, example.size(), "two marked parts in " + EXAMPLE);
        assertTrue(page.size() >= 2, PAGE + " has the two java blocks: " + page);
        assertEquals(example.get(0), page.get(0));
        assertEquals(example.get(1), page.get(1));
    }
}
