package dev.tollgate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link Messages#CATALOG}, from which docs/reference/messages.md is written, holds every id that
 * {@link Messages} declares, each once, and no other.
 */
class MessagesCatalogTest {

    /** Every {@code static final String} constant of Messages whose value is a {@code TOLLGATE-} id, by id. */
    static Map<String, String> idConstants() throws IllegalAccessException {
        Map<String, String> ids = new TreeMap<>();
        for (Field f : Messages.class.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType() == String.class) {
                f.setAccessible(true);
                String value = (String) f.get(null);
                if (value.startsWith("TOLLGATE-")) {
                    String before = ids.put(value, f.getName());
                    assertTrue(before == null, value + " is the value of both " + before + " and " + f.getName());
                }
            }
        }
        return ids;
    }

    @Test
    void everyIdIsInTheCatalogExactlyOnceAndTheCatalogHasNoOther() throws IllegalAccessException {
        Map<String, String> constants = idConstants();
        assertTrue(constants.size() >= 17, "the ids Messages declares: " + constants);
        List<String> problems = new ArrayList<>();
        Map<String, Long> inCatalog = Messages.CATALOG.stream()
                .collect(Collectors.groupingBy(Messages.Entry::id, TreeMap::new, Collectors.counting()));
        constants.forEach((id, field) -> {
            long n = inCatalog.getOrDefault(id, 0L);
            if (n != 1) {
                problems.add(id + " (Messages." + field + ") is in Messages.CATALOG " + n + " times; it must be once");
            }
        });
        inCatalog.keySet().stream().filter(id -> !constants.containsKey(id))
                .forEach(id -> problems.add(id + " is in Messages.CATALOG but no constant of Messages"));
        assertEquals(List.of(), problems);
    }

    @Test
    void theCatalogIsInTheOrderOfItsIds() {
        List<String> ids = Messages.CATALOG.stream().map(Messages.Entry::id).toList();
        assertEquals(ids.stream().sorted().toList(), ids);
    }

    @Test
    void anEntryWithoutMeaningOrWithAnUnknownLevelIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Messages.Entry("TOLLGATE-001", "SEVERE", " ", "x"));
        assertThrows(IllegalArgumentException.class, () -> new Messages.Entry("TOLLGATE-001", "ERROR", "x", "x"));
        assertThrows(IllegalArgumentException.class, () -> new Messages.Entry("TOLLGATE-1", "INFO", "x", "x"));
    }
}
