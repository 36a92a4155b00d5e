package dev.tollgate.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks measure Tollgate as an application uses it: no source of this module may name a
 * class of {@code dev.tollgate.internal} (an import, a static import, a fully qualified name), so a
 * change inside the library never has to change a benchmark, and a figure is always one a user can
 * reproduce. The store-level micro-benchmarks live beside the stores, in filter-core's {@code jmh}
 * source set. Comments and string literals may mention the package (to say where things moved).
 */
class PublicApiOnlyTest {

    private static final String INTERNAL = "dev.tollgate.internal";

    @Test
    void noSourceOfTheModuleNamesAnInternalClass() throws IOException {
        Path sources = Path.of("src", "main", "java");
        assertTrue(Files.isDirectory(sources), "run from the benchmarks module: no " + sources.toAbsolutePath());
        List<String> offending = new ArrayList<>();
        int files = 0;
        try (Stream<Path> all = Files.walk(sources)) {
            for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".java")).sorted()::iterator) {
                files++;
                offending.addAll(internalReferences(sources.relativize(f).toString(),
                        Files.readString(f, StandardCharsets.UTF_8)));
            }
        }
        assertTrue(files > 20, "expected the module's sources under " + sources.toAbsolutePath() + ", found " + files);
        assertEquals(List.of(), offending, "benchmarks must use Tollgate's public API only (dev.tollgate, .config,"
                + " .spi, .cdi and the adapters); store-level micro-benchmarks belong in filter-core/src/jmh/java");
    }

    @Test
    void theCheckSeesImportsStaticImportsAndQualifiedNames() {
        assertEquals(List.of("A.java:3: import dev.tollgate.internal.local.LocalStore;"),
                internalReferences("A.java", "package x;\n\nimport dev.tollgate.internal.local.LocalStore;\nclass A {}\n"));
        assertEquals(List.of("B.java:1: import static dev.tollgate.internal.redis.RedisStore.SCRIPT;"),
                internalReferences("B.java", "import static dev.tollgate.internal.redis.RedisStore.SCRIPT;\n"));
        assertEquals(List.of("C.java:2: Object s = new dev.tollgate.internal.local.LocalStore(1, null);"),
                internalReferences("C.java", "class C {\n  Object s = new dev.tollgate.internal.local.LocalStore(1, null);\n}\n"));
        assertEquals(List.of("D.java:1: import dev.tollgate . internal.redis.RedisStore;"),
                internalReferences("D.java", "import dev.tollgate . internal.redis.RedisStore;\n"));
    }

    @Test
    void commentsAndStringsMayNameThePackage() {
        String source = """
                package x;
                // dev.tollgate.internal.local.LocalStore moved
                /* dev.tollgate.internal.redis.RedisStore
                   dev.tollgate.internal.engine.DenyCache */
                /** {@link dev.tollgate.internal.Messages} */
                class E {
                    String a = "dev.tollgate.internal.redis.ScriptFloor";
                    String b = "quote \\" dev.tollgate.internal.x";
                    char c = '"';
                    String d = \"""
                        dev.tollgate.internal.y
                        \""";
                }
                """;
        assertEquals(List.of(), internalReferences("E.java", source));
        assertFalse(internalReferences("F.java", source + "class F { dev.tollgate.internal.Messages m; }\n").isEmpty(),
                "code after the comments and strings is still read");
    }

    /** Each line of code (comments and literals blanked) that names the internal package, as "file:line: text". */
    static List<String> internalReferences(String name, String source) {
        String code = codeOnly(source);
        String[] codeLines = code.split("\n", -1);
        String[] lines = source.split("\n", -1);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < codeLines.length; i++) {
            if (codeLines[i].replaceAll("\\s+", "").contains(INTERNAL)) {
                out.add(name + ":" + (i + 1) + ": " + lines[i].trim());
            }
        }
        return out;
    }

    /**
     * The source with every comment, string literal, text block and character literal replaced by
     * spaces, line breaks kept, so that line numbers stay those of the source.
     */
    static String codeOnly(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (s.startsWith("//", i)) {
                while (i < s.length() && s.charAt(i) != '\n') {
                    out.append(' ');
                    i++;
                }
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                end = end < 0 ? s.length() : end + 2;
                blank(s, i, end, out);
                i = end;
            } else if (s.startsWith("\"\"\"", i)) {
                int end = i + 3;
                while (end < s.length() && !s.startsWith("\"\"\"", end)) {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(s.length(), end + 3);
                blank(s, i, end, out);
                i = end;
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < s.length() && s.charAt(end) != c && s.charAt(end) != '\n') {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(s.length(), end + 1);
                blank(s, i, end, out);
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static void blank(String s, int from, int to, StringBuilder out) {
        for (int k = from; k < to; k++) {
            out.append(s.charAt(k) == '\n' ? '\n' : ' ');
        }
    }
}
