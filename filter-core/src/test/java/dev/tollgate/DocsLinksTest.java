package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README and the manual under {@code docs/} link to files and headings that exist: every
 * relative link {@code [text](path#anchor)} outside code names a file of the repository, and an
 * anchor names a heading of its page as GitHub spells it. Every page of the manual is linked from
 * the README.
 */
class DocsLinksTest {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** {@code [text](target)} or {@code ![alt](target)}, with an optional title. */
    static final Pattern LINK = Pattern.compile("\\[((?:[^\\[\\]]|\\[[^\\]]*\\])*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    /** A link as written: the page it is on, its line, its target. */
    record Link(Path page, int line, String target) {
        @Override
        public String toString() {
            return ROOT.relativize(page) + ":" + line + ": (" + target + ")";
        }
    }

    /** README.md and every Markdown page under docs/. */
    static List<Path> pages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> files = Files.walk(root.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The lines of a page outside fenced code blocks, with their numbers (from 1); code lines are blank. */
    static List<String> prose(Path page) throws IOException {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                out.add("");
            } else {
                out.add(fenced ? "" : line);
            }
        }
        return out;
    }

    static List<Link> links(Path page) throws IOException {
        List<Link> out = new ArrayList<>();
        List<String> lines = prose(page);
        for (int i = 0; i < lines.size(); i++) {
            // code spans emptied, so a link in code is none, and [`bucket.lua`](...) keeps its target
            Matcher m = LINK.matcher(INLINE_CODE.matcher(lines.get(i)).replaceAll("``"));
            while (m.find()) {
                out.add(new Link(page, i + 1, m.group(2)));
            }
        }
        return out;
    }

    /** The anchor GitHub gives a heading: lower case, markup and punctuation dropped, spaces as '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").replace("*", "");
        StringBuilder out = new StringBuilder();
        text.toLowerCase(java.util.Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                out.appendCodePoint(c);
            } else if (c == ' ') {
                out.append('-');
            }
        });
        return out.toString();
    }

    /** Every anchor of a page's headings, a repeated one numbered as GitHub does ({@code x}, {@code x-1}, ...). */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(page)) {
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                String s = slug(m.group(2));
                int n = seen.merge(s, 1, Integer::sum) - 1;
                out.add(n == 0 ? s : s + "-" + n);
            }
        }
        return out;
    }

    /** What is wrong with each relative link of these pages: a file that is not there, an anchor no heading has. */
    static List<String> broken(Path root, List<Path> pages) throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path page : pages) {
            for (Link link : links(page)) {
                String target = link.target();
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // https:, mailto:: not a file of the repository
                }
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
                String name = root.relativize(file).toString().replace(java.io.File.separatorChar, '/');
                if (!file.startsWith(root)) {
                    problems.add(link + ": outside the repository");
                } else if (!Files.exists(file)) {
                    problems.add(link + ": no file " + name);
                } else if (anchor != null && file.toString().endsWith(".md") && !anchors(file).contains(anchor)) {
                    problems.add(link + ": " + name + " has no heading #" + anchor + "; its anchors: " + anchors(file));
                }
            }
        }
        return problems;
    }

    @Test
    void everyRelativeLinkNamesAFileAndAHeadingThatExist() throws IOException {
        List<Path> pages = pages(ROOT);
        assertTrue(pages.size() >= 10, "the README and the manual's pages: " + pages);
        int links = 0;
        for (Path p : pages) {
            links += links(p).size();
        }
        assertTrue(links >= 100, "the pages link to each other: " + links + " links");
        List<String> problems = broken(ROOT, pages);
        assertTrue(problems.isEmpty(), problems.size() + " broken links:\n" + String.join("\n", problems));
    }

    @Test
    void theReadmeLinksEveryPageOfTheManual() throws IOException {
        Set<Path> linked = links(ROOT.resolve("README.md")).stream()
                .filter(l -> !l.target().contains(":"))
                .map(l -> ROOT.resolve(l.target().replaceAll("#.*", "")).normalize())
                .collect(Collectors.toSet());
        List<Path> manual;
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            manual = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        }
        assertTrue(manual.size() >= 10, "the manual's pages: " + manual);
        List<Path> unlinked = manual.stream().filter(p -> !linked.contains(p)).toList();
        assertEquals(List.of(), unlinked, "pages of docs/ that the README's table of contents does not link");
    }

    @Test
    void anchorsAreSpelledAsGitHubSpellsThem() {
        assertEquals("the-articles-test-hey-before-and-after", slug("The article's test: `hey`, before and after"));
        assertEquals("failure-modes-local-open-closed", slug("Failure modes: `local`, `open`, `closed`"));
        assertEquals("retry-after-and-t-tell-the-truth", slug("`Retry-After` and `t` tell the truth"));
        assertEquals("managed-redis-tls", slug("Managed Redis (TLS)"));
        assertEquals("quick-start-the-servlet-filter-webxml", slug("Quick start: the servlet filter (`web.xml`)"));
    }

    @Test
    void aLinkToAMissingFileOrHeadingIsFound(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("README.md"), String.join("\n",
                "# Title", "## Same", "## Same", "[ok](docs/a.md#part-two) [ok](#same-1) [ok](https://example.com/x)",
                "[gone](docs/missing.md) [bad anchor](docs/a.md#part-three)", "```", "[in code](docs/nowhere.md)", "```",
                "`[inline code](docs/nowhere.md)` [ref](docs/reference/configuration.md#x)"));
        Files.writeString(root.resolve("docs/a.md"), "# A\n\n## Part two\n\n[back](../README.md#same) [up](../../x.md)\n");
        List<String> problems = broken(root, pages(root));
        assertEquals(4, problems.size(), String.join("\n", problems));
        assertTrue(problems.get(0).contains("(docs/missing.md): no file docs/missing.md"), problems.get(0));
        assertTrue(problems.get(1).contains("has no heading #part-three"), problems.get(1));
        assertTrue(problems.get(2).contains("docs/reference/configuration.md"), problems.get(2));
        assertTrue(problems.get(3).contains("outside the repository"), problems.get(3));
    }
}
