package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigKeys;
import dev.tollgate.internal.Messages;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Keeps the README true: every configuration key and every message id is documented there. */
class ReadmeTest {

    static final Path README = Path.of("..", "README.md");

    static List<String> lines() throws IOException {
        return Files.readAllLines(README);
    }

    @Test
    void theConfigurationTableListsEveryKeyWithItsVariableAndDefault() throws IOException {
        List<String> rows = lines().stream().filter(l -> l.startsWith("| `tollgate.") && l.contains("| `TOLLGATE_"))
                .collect(Collectors.toList());
        assertEquals(ConfigKeys.ALL.size(), rows.size(), "one row per key:\n" + String.join("\n", rows));
        for (ConfigKeys.Key key : ConfigKeys.ALL) {
            String env = ConfigKeys.environmentName(key.name().replace("<name>", "XNAMEX").replace("<plan>", "XPLANX"))
                    .replace("XNAMEX", "<NAME>").replace("XPLANX", "<PLAN>");
            String row = rows.stream().filter(r -> r.startsWith("| `" + key.name() + "` |")).findFirst()
                    .orElseThrow(() -> new AssertionError("no README row for " + key.name()));
            assertTrue(row.contains("| `" + env + "` |"), row + " lacks " + env);
            String shownDefault = key.defaultValue().startsWith("(") ? key.defaultValue() : "`" + key.defaultValue() + "`";
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
}
