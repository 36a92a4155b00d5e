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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README true: the configuration table is {@link Settings}, row by row; every message id
 * is documented there; every test that the Guarantees section names as its proof exists.
 */
class ReadmeTest {

    static final Path README = Path.of("..", "README.md");

    static List<String> lines() throws IOException {
        return Files.readAllLines(README);
    }

    /** The lines under {@code heading} (a {@code ## } heading), up to the next one. */
    static List<String> section(String heading) throws IOException {
        List<String> section = new ArrayList<>();
        boolean inside = false;
        for (String line : lines()) {
            if (line.startsWith("## ")) {
                inside = line.equals(heading);
            } else if (inside) {
                section.add(line);
            }
        }
        assertTrue(!section.isEmpty(), "the README has a section " + heading);
        return section;
    }

    /** The cells of a Markdown table row, with {@code \\|} kept inside its cell. */
    static List<String> cells(String row) {
        List<String> out = new ArrayList<>();
        for (String cell : row.substring(1, row.length() - (row.endsWith("|") ? 1 : 0)).split("(?<!\\\\)\\|", -1)) {
            out.add(cell.trim());
        }
        return out;
    }

    /** The row {@code setting} should have, as the README writes it. */
    static String row(Setting<?> s) {
        return "| `" + s.name() + "` | `" + s.environmentName() + "` | " + s.shownDefault() + " | "
                + s.meaning().replace("|", "\\|") + " |";
    }

    @Test
    void theConfigurationTableIsTheSettingsRowByRow() throws IOException {
        List<String> rows = section("## Configuration").stream().filter(l -> l.startsWith("| `tollgate."))
                .collect(Collectors.toList());
        Map<String, String> byKey = new LinkedHashMap<>();
        for (String r : rows) {
            assertTrue(r.endsWith(" |"), "a row ends with ' |': " + r);
            List<String> cells = cells(r);
            assertEquals(4, cells.size(), "key, environment variable, default, meaning: " + r);
            String key = cells.get(0).replace("`", "");
            assertTrue(byKey.put(key, r) == null, "two rows for " + key);
            assertTrue(Settings.ALL.stream().anyMatch(s -> s.name().equals(key)), "the README has a row for " + key
                    + ", which is no setting (dev.tollgate.config.Settings)");
        }
        List<String> problems = new ArrayList<>();
        for (Setting<?> s : Settings.ALL) {
            String r = byKey.get(s.name());
            if (r == null) {
                problems.add("no row for " + s.name() + "; add:\n" + row(s));
                continue;
            }
            List<String> cells = cells(r);
            check(problems, s, "environment variable", "`" + s.environmentName() + "`", cells.get(1));
            check(problems, s, "default", s.shownDefault(), cells.get(2));
            check(problems, s, "meaning", s.meaning().replace("|", "\\|"), cells.get(3));
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertEquals(Settings.ALL.stream().map(Setting::name).collect(Collectors.toList()), List.copyOf(byKey.keySet()),
                "the rows are in the order of Settings.ALL");
    }

    private static void check(List<String> problems, Setting<?> s, String what, String expected, String actual) {
        if (!expected.equals(actual)) {
            problems.add(s.name() + ": the README's " + what + " is " + actual + ", the setting's " + expected
                    + "; the row should read:\n" + row(s));
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
        List<String> section = section("## Guarantees");
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
