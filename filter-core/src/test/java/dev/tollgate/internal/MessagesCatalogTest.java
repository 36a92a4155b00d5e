package dev.tollgate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.text.ConfigMessages;
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
 * {@link Messages} and {@link ConfigMessages} (the configuration's problems) declare, each once,
 * and no other.
 */
class MessagesCatalogTest {

    /** The classes that declare message ids. */
    static final List<Class<?>> DECLARING = List.of(Messages.class, ConfigMessages.class);

    /**
     * Every {@code static final String} constant of the {@link #DECLARING} classes whose value is a
     * {@code TOLLGATE-} id, by id, to the constant's class and name.
     */
    static Map<String, String> idConstants() throws IllegalAccessException {
        Map<String, String> ids = new TreeMap<>();
        for (Class<?> c : DECLARING) {
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType() == String.class) {
                    f.setAccessible(true);
                    String value = (String) f.get(null);
                    String name = c.getSimpleName() + "." + f.getName();
                    if (value.startsWith("TOLLGATE-")) {
                        String before = ids.put(value, name);
                        assertTrue(before == null, value + " is the value of both " + before + " and " + name);
                    }
                }
            }
        }
        return ids;
    }

    @Test
    void eachDeclaringClassHoldsIds() throws IllegalAccessException {
        Map<String, String> constants = idConstants();
        for (Class<?> c : DECLARING) {
            assertTrue(constants.values().stream().anyMatch(n -> n.startsWith(c.getSimpleName() + ".")),
                    c.getSimpleName() + " declares no id: " + constants);
        }
    }

    @Test
    void everyIdIsInTheCatalogExactlyOnceAndTheCatalogHasNoOther() throws IllegalAccessException {
        Map<String, String> constants = idConstants();
        assertTrue(constants.size() >= 17, "the ids declared: " + constants);
        List<String> problems = new ArrayList<>();
        Map<String, Long> inCatalog = Messages.CATALOG.stream()
                .collect(Collectors.groupingBy(Messages.Entry::id, TreeMap::new, Collectors.counting()));
        constants.forEach((id, field) -> {
            long n = inCatalog.getOrDefault(id, 0L);
            if (n != 1) {
                problems.add(id + " (" + field + ") is in Messages.CATALOG " + n + " times; it must be once");
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
