package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.Setting;
import dev.tollgate.config.Settings;
import dev.tollgate.internal.Messages;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README true: every configuration key and every message id is documented there, and
 * every test that the Guarantees section names as its proof exists.
 */
class ReadmeTest {

    static final Path README = Path.of("..", "README.md");

    static List<String> lines() throws IOException {
        return Files.readAllLines(README);
    }

    @Test
    void theConfigurationTableListsEveryKeyWithItsVariableAndDefault() throws IOException {
        List<String> rows = lines().stream().filter(l -> l.startsWith("| `tollgate.") && l.contains("| `TOLLGATE_"))
                .collect(Collectors.toList());
        assertEquals(Settings.ALL.size(), rows.size(), "one row per key:\n" + String.join("\n", rows));
        for (Setting<?> key : Settings.ALL) {
            String env = key.environmentName();
            String row = rows.stream().filter(r -> r.startsWith("| `" + key.name() + "` |")).findFirst()
                    .orElseThrow(() -> new AssertionError("no README row for " + key.name()));
            assertTrue(row.contains("| `" + env + "` |"), row + " lacks " + env);
            String shownDefault = key.shownDefault();
            assertTrue(row.contains("| " + shownDefault + " |"), row + " lacks the default " + shownDefault);
        }
    }

    @Test
    void everyMessageIdIsListed() throws IOException, IllegalAccessException {
        String text = String.join("\n", lines());
        for (Field f : Messages.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                String id = (String) f.get(null);
                assertTrue(text.contains("| `" + id + "` |"), "README does not list " + id);
            }
        }
    }

    /** A test named in the README: {@code `ClassName#method`} or {@code `ClassName`}. */
    static final Pattern NAMED_TEST = Pattern.compile("`([A-Z][A-Za-z0-9]*(?:Test|IT|Properties))(?:#([a-zA-Z0-9_]+))?`");

    @Test
    void everyGuaranteeNamesATestThatExists() throws IOException {
        List<String> section = new ArrayList<>();
        boolean inside = false;
        for (String line : lines()) {
            if (line.startsWith("## ")) {
                inside = line.equals("## Guarantees");
            } else if (inside) {
                section.add(line);
            }
        }
        assertTrue(section.size() > 10, "the README has a Guarantees section");
        List<Path> tests;
        try (Stream<Path> files = Files.walk(Path.of(".."))) {
            tests = files.filter(f -> f.toString().contains("src" + java.io.File.separator + "test")
                    && f.toString().endsWith(".java")).collect(Collectors.toList());
        }
        int named = 0;
        for (String line : section) {
            Matcher m = NAMED_TEST.matcher(line);
            while (m.find()) {
                named++;
                String type = m.group(1);
                List<Path> files = tests.stream().filter(f -> f.getFileName().toString().equals(type + ".java"))
                        .collect(Collectors.toList());
                assertTrue(!files.isEmpty(), "the Guarantees section names " + type + ", which is no test class");
                if (m.group(2) != null) {
                    String method = " " + m.group(2) + "(";
                    boolean found = false;
                    for (Path f : files) {
                        found |= Files.readString(f).contains(method);
                    }
                    assertTrue(found, "the Guarantees section names " + type + "#" + m.group(2) + ", which " + files
                            + " does not have");
                }
            }
        }
        assertTrue(named >= 10, "each guarantee names the test that proves it; found " + named);
    }
}
