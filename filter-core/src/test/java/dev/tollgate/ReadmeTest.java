package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.Settings;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSource;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestCertificates;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README and the manual ({@code docs/*.md}) true: every configuration snippet
 * (properties, shell variables, init-params) on any of their pages loads without a warning, and
 * every test that {@code docs/guarantees.md} names as a proof exists. (The reference pages of
 * every key and every message are generated from {@code Settings} and {@code Messages} and
 * checked by their own test.)
 */
class ReadmeTest {

    static final Path ROOT = Path.of("..");
    static final Path README = ROOT.resolve("README.md");
    static final Path GUARANTEES = ROOT.resolve("docs").resolve("guarantees.md");

    /** The README, then each page of the manual (docs/*.md) in name order. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(README);
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** A fenced block of a page: the page, its language, its first line's number and its lines. */
    record Block(Path page, String language, int line, List<String> lines) {
        String text() {
            return String.join("\n", lines);
        }

        /** Where it is, as a reader finds it: {@code docs/policies.md line 80}. */
        String where() {
            return ROOT.relativize(page).toString().replace(java.io.File.separatorChar, '/') + " line " + line;
        }
    }

    /** The fenced blocks of {@code language} on every page. */
    static List<Block> blocks(String language) throws IOException {
        List<Block> out = new ArrayList<>();
        for (Path page : pages()) {
            List<String> all = Files.readAllLines(page);
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).equals("```" + language)) {
                    int start = i + 1;
                    int end = start;
                    while (!all.get(end).equals("```")) {
                        end++;
                    }
                    out.add(new Block(page, language, start + 1, all.subList(start, end)));
                    i = end;
                }
            }
        }
        return out;
    }

    /** The pages (file names) these blocks are on. */
    static Set<String> pagesOf(List<Block> blocks) {
        return blocks.stream().map(b -> b.page().getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The first line of a block that shows a configuration Tollgate must refuse. */
    static final String REFUSED = "# refused:";

    /**
     * Loads a snippet as Tollgate would, expecting it to start without a warning; a fragment
     * (no policy of its own) is loaded next to the smallest configuration. A snippet whose first
     * line is {@value #REFUSED} must be refused.
     */
    static void loads(Block b, ConfigSource snippet) {
        ConfigLookup alone = ConfigLookup.of(snippet);
        boolean fragment = alone.get(Settings.POLICIES.name()).isEmpty()
                && alone.get(Settings.POLICY_LIMITS.forPolicy("default").name()).isEmpty();
        ConfigLookup lookup = fragment ? ConfigLookup.of(snippet, ConfigSources.of("the smallest configuration",
                k -> k.equals("tollgate.policy.default.limits") ? "10/s" : null)) : alone;
        String where = b.where() + ":\n" + b.text() + "\n";
        if (b.lines().get(0).startsWith(REFUSED)) {
            assertThrows(ConfigException.class, () -> TollgateConfig.load(lookup, null), where + "is not refused");
            return;
        }
        TollgateConfig c;
        try {
            c = TollgateConfig.load(lookup, null);
        } catch (ConfigException e) {
            throw new AssertionError(where + "does not load: " + e.getMessage(), e);
        }
        assertEquals(List.of(), c.warnings(), where + "loads with warnings");
    }

    @Test
    void everyPropertiesSnippetLoads() throws IOException {
        List<Block> blocks = blocks("properties");
        assertTrue(blocks.size() >= 18, "the properties snippets of the README and the manual: " + blocks.size());
        assertTrue(pagesOf(blocks).containsAll(Set.of("README.md", "cdi.md", "http.md", "jaxrs.md", "outbound.md", "policies.md",
                "proxies.md", "redis.md")),
                "properties snippets on the pages that show them: " + pagesOf(blocks));
        for (Block b : blocks) {
            Properties p = new Properties();
            p.load(new StringReader(b.text())); // as MicroProfile Config reads microprofile-config.properties
            Map<String, String> values = new LinkedHashMap<>();
            p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
            withExampleFiles(values);
            assertTrue(!values.isEmpty(), b.where() + " sets nothing");
            loads(b, ConfigSources.of(b.where(), values));
        }
    }

    /**
     * The TLS example names files under {@code /etc/tollgate/}: the test makes real ones (a CA's
     * PEM, a client's PKCS12, its PEM key and chain) and the store password they were written with, so the example is
     * loaded, files checked, as an operator's would be.
     */
    static void withExampleFiles(Map<String, String> values) {
        values.replaceAll((k, v) -> {
            if (v.equals("/etc/tollgate/redis-ca.pem")) {
                return TestCertificates.shared().caPem().toString();
            }
            if (v.equals("/etc/tollgate/redis-client.p12")) {
                return TestCertificates.shared().clientKeyStore().toString();
            }
            if (v.equals("/etc/tollgate/tls/tls.key")) {
                return TestCertificates.shared().clientKeyPem().toString();
            }
            if (v.equals("/etc/tollgate/tls/tls.crt")) {
                return TestCertificates.shared().clientChainPem().toString();
            }
            if (v.startsWith("/etc/tollgate/")) {
                throw new AssertionError("a snippet names a file the test does not make: " + v);
            }
            return k.startsWith("tollgate.redis.tls.") && k.endsWith("-password") ? TestCertificates.PASSWORD : v;
        });
    }

    /** {@code TOLLGATE_X=value}, {@code TOLLGATE_X="value"} or {@code TOLLGATE_X='value'} in a shell command. */
    static final Pattern VARIABLE = Pattern.compile("\\b(TOLLGATE_[A-Z0-9_]+)=(?:\"([^\"]*)\"|'([^']*)'|(\\S+))");

    @Test
    void everyEnvironmentVariableInAShellSnippetLoads() throws IOException {
        int snippets = 0;
        List<Block> loaded = new ArrayList<>();
        for (Block b : blocks("sh")) {
            Map<String, String> environment = new LinkedHashMap<>();
            Matcher m = VARIABLE.matcher(b.text());
            while (m.find()) {
                environment.put(m.group(1), m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4));
            }
            if (!environment.isEmpty()) {
                snippets++;
                loaded.add(b);
                loads(b, ConfigSources.system(environment));
            }
        }
        assertTrue(snippets >= 8, "the shell snippets that set variables, README and manual: " + snippets);
        assertTrue(pagesOf(loaded).containsAll(Set.of("README.md", "configuring.md", "demo.md", "policies.md", "servlet.md")),
                "shell snippets that set variables on the pages that show them: " + pagesOf(loaded));
    }

    static final Pattern INIT_PARAM = Pattern.compile(
            "<param-name>([^<]*)</param-name>\\s*<param-value>([^<]*)</param-value>");

    @Test
    void everyInitParamSnippetLoads() throws IOException {
        int snippets = 0;
        List<Block> loaded = new ArrayList<>();
        for (Block b : blocks("xml")) {
            Map<String, String> params = new LinkedHashMap<>();
            Matcher m = INIT_PARAM.matcher(b.text());
            while (m.find()) {
                params.put(m.group(1).trim(), m.group(2).trim());
            }
            if (!params.isEmpty()) {
                snippets++;
                loaded.add(b);
                loads(b, ConfigSources.of("init-param in " + b.where(), params));
            }
        }
        // The README's quick start declares the filter without init-params (its limits come from the
        // environment snippet beside it, loaded by everyEnvironmentVariableInAShellSnippetLoads).
        assertTrue(pagesOf(loaded).contains("servlet.md"), "the web.xml snippets of docs/servlet.md: " + pagesOf(loaded));
    }

    /**
     * Issue 27: the README's servlet quick start is the environment-only one: a filter without
     * init-params, a shell snippet with the limit, the match, Redis and strict-config (loaded
     * through the real loader by the test above), and a dependency snippet that brings an SLF4J
     * binding, so that a Tomcat user sees no SLF4J warning.
     */
    @Test
    void theServletQuickStartTakesItsLimitsFromTheEnvironment() throws IOException {
        List<Block> readme = new ArrayList<>();
        for (String language : List.of("xml", "sh")) {
            blocks(language).stream().filter(b -> b.page().equals(README)).forEach(readme::add);
        }
        Block filter = readme.stream().filter(b -> b.text().contains("<filter-class>dev.tollgate.servlet.TollgateFilter"))
                .findFirst().orElseThrow(() -> new AssertionError("no web.xml snippet in the README"));
        assertTrue(!filter.text().contains("<init-param>"), filter.where() + ": the quick start's filter carries no limit");
        assertTrue(filter.text().contains("<url-pattern>/*</url-pattern>"), filter.where());
        Block environment = readme.stream().filter(b -> b.language().equals("sh")
                && b.text().contains("TOLLGATE_POLICY_DEFAULT_LIMITS=")).findFirst()
                .orElseThrow(() -> new AssertionError("no environment snippet with the limit in the README"));
        for (String variable : List.of("TOLLGATE_POLICY_DEFAULT_MATCH=", "TOLLGATE_REDIS_URI=", "TOLLGATE_STRICT_CONFIG=true")) {
            assertTrue(environment.text().contains(variable), environment.where() + " sets " + variable);
        }
        assertTrue(readme.indexOf(filter) >= 0 && filter.line() < environment.line(), "the variables follow the filter");
        Block dependency = readme.stream().filter(b -> b.text().contains("<artifactId>tollgate-filter-servlet</artifactId>")
                && b.line() < filter.line()).findFirst()
                .orElseThrow(() -> new AssertionError("no dependency snippet before the quick start's filter"));
        assertTrue(dependency.text().contains("<artifactId>slf4j-jdk14</artifactId>"), dependency.where()
                + " brings an SLF4J binding for Jedis' log");
        String page = Files.readString(README);
        assertTrue(page.lines().count() <= 250, "the README is a front page: " + page.lines().count() + " lines");
        assertTrue(page.indexOf("mvn install -DskipTests -DskipServers") < page.indexOf("<artifactId>tollgate-filter-servlet"),
                "the install step comes before the first dependency");
    }

    /** A test named in docs/guarantees.md: {@code `ClassName#method`} or {@code `ClassName`}. */
    static final Pattern NAMED_TEST = Pattern.compile("`([A-Z][A-Za-z0-9]*(?:Test|IT|Properties))(?:#([a-zA-Z0-9_]+))?`");

    @Test
    void everyGuaranteeNamesATestThatExists() throws IOException {
        List<String> page = Files.readAllLines(GUARANTEES);
        assertTrue(page.size() > 100, "the manual has its guarantees page, " + GUARANTEES);
        List<Path> tests;
        try (Stream<Path> files = Files.walk(Path.of(".."))) {
            tests = files.filter(f -> f.toString().contains("src" + java.io.File.separator + "test")
                    && f.toString().endsWith(".java")).collect(Collectors.toList());
        }
        int named = 0;
        for (String line : page) {
            Matcher m = NAMED_TEST.matcher(line);
            while (m.find()) {
                named++;
                String type = m.group(1);
                List<Path> files = tests.stream().filter(f -> f.getFileName().toString().equals(type + ".java"))
                        .collect(Collectors.toList());
                assertTrue(!files.isEmpty(), "docs/guarantees.md names " + type + ", which is no test class");
                if (m.group(2) != null) {
                    String method = " " + m.group(2) + "(";
                    boolean found = false;
                    for (Path f : files) {
                        found |= Files.readString(f).contains(method);
                    }
                    assertTrue(found, "docs/guarantees.md names " + type + "#" + m.group(2) + ", which " + files
                            + " does not have");
                }
            }
        }
        assertTrue(named >= 80, "each guarantee names the test that proves it; found " + named);
    }
}
