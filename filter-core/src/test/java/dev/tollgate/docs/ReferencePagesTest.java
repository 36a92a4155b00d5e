package dev.tollgate.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.Setting;
import dev.tollgate.config.Settings;
import dev.tollgate.internal.Messages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reference pages in docs/reference are what {@link ReferencePages} writes from the code; with
 * {@code -Dreference-pages=write} this test writes them instead ({@value ReferencePages#COMMAND}).
 */
class ReferencePagesTest {

    /** The tests run in filter-core; the pages' paths are from the project's root. */
    private static final Path ROOT = Path.of("..");

    @Test
    void eachPageIsWhatTheCommandWrites() throws IOException {
        if ("write".equals(System.getProperty(ReferencePages.WRITE_PROPERTY))) {
            ReferencePages.main(new String[] {ROOT.toString()});
        }
        List<String> differ = new ArrayList<>();
        for (Map.Entry<String, String> page : ReferencePages.pages().entrySet()) {
            Path file = ROOT.resolve(page.getKey());
            if (!Files.exists(file) || !Files.readString(file).equals(page.getValue())) {
                differ.add(page.getKey() + " differs from what `" + ReferencePages.COMMAND + "` writes; run it");
            }
        }
        assertEquals(List.of(), differ);
    }

    @Test
    void everySettingIsInExactlyOneGroup() {
        Map<Setting<?>, String> groupOf = new IdentityHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Settings.Group g : Settings.GROUPS) {
            assertTrue(!g.settings().isEmpty() && !g.about().isBlank(), "group " + g.title() + " says what it is for");
            for (Setting<?> s : g.settings()) {
                String before = groupOf.put(s, g.title());
                if (before != null) {
                    problems.add(s.name() + " is in group '" + before + "' and in '" + g.title() + "'");
                }
            }
        }
        for (Setting<?> s : Settings.ALL) {
            if (!groupOf.containsKey(s)) {
                problems.add(s.name() + " is in no group of Settings.GROUPS, so the reference does not list it");
            }
        }
        assertEquals(List.of(), problems);
        assertEquals(Settings.ALL.size(), groupOf.size(), "the groups hold the settings of Settings.ALL only");
    }

    @Test
    void theConfigurationPageListsEveryKeyWithItsVariableDefaultAndAcceptedValues() {
        String page = ReferencePages.configuration();
        for (Setting<?> s : Settings.ALL) {
            String row = "| `" + s.name() + "`<br>`" + s.environmentName() + "` | ";
            assertEquals(1, count(page, row), "one row for " + s.name());
            String line = page.substring(page.indexOf(row), page.indexOf('\n', page.indexOf(row)));
            assertTrue(line.contains(" | " + s.shownDefault().replace("|", "\\|") + " | "), line);
            assertTrue(line.contains(" | " + ReferencePages.markdown(s.accepted()) + " | "), line);
        }
        assertTrue(page.contains("`tollgate.policy.<name>.limits`<br>`TOLLGATE_POLICY_<NAME>_LIMITS` | (required without"
                + " concurrency) | `<amount>/<unit> [burst <capacity>]`"), "a template key, with its accepted values");
    }

    @Test
    void acceptedValuesAreQuotedAsCodeAndMarkupIsEscaped() {
        assertEquals("`[METHOD[\\|METHOD]] /path`, e.g. `/api/**`", ReferencePages.markdown(
                "'[METHOD[|METHOD]] /path', e.g. '/api/**'"));
        assertEquals("&lt;unit&gt; is ms; not X-RateLimit-\\*", ReferencePages.markdown("<unit> is ms; not X-RateLimit-*"));
        assertEquals("the client's key, or `a`", ReferencePages.markdown("the client's key, or 'a'"));
    }

    @Test
    void theMessagesPageHasEveryIdOnceWithAnExampleLine() {
        String page = ReferencePages.messages();
        Map<String, String> examples = ReferencePages.examples();
        assertEquals(Messages.CATALOG.stream().map(Messages.Entry::id).toList(), List.copyOf(examples.keySet()),
                "an example line for each id of the catalog, in its order");
        for (Messages.Entry e : Messages.CATALOG) {
            assertEquals(1, count(page, "\n## " + e.id() + "\n"), "one section for " + e.id());
            assertTrue(examples.get(e.id()).startsWith(e.id() + ": "), "the example of " + e.id() + " is one of its"
                    + " lines: " + examples.get(e.id()));
            assertTrue(page.contains("```\n" + examples.get(e.id()) + "\n```"), "the example of " + e.id());
            assertTrue(page.contains("](#" + ReferencePages.anchor(e.id()) + ")"), "the table links " + e.id());
        }
    }

    @Test
    void anchorsAreGitHubs() {
        assertEquals("tollgate-001", ReferencePages.anchor("TOLLGATE-001"));
        assertEquals("clients-addresses-proxies-and-the-allow-list",
                ReferencePages.anchor("Clients: addresses, proxies and the allow-list"));
        assertEquals("this-nodes-memory", ReferencePages.anchor("This node's memory"));
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
