package dev.tollgate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Checks on an adapter's drop-in jar ({@code *-all.jar}, built by maven-shade-plugin). */
public final class DropInJars {

    private DropInJars() {
    }

    /** The drop-in jar of the module under test, from its {@code target/}. */
    public static Path find(String artifactId) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            return files.filter(p -> p.getFileName().toString().matches(artifactId + "-.*-all\\.jar"))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + artifactId + " drop-in jar in target/"));
        }
    }

    /** The class files that are not under {@code dev/tollgate/} and so could clash with an application's. */
    public static List<String> classesOutsideTollgate(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.stream().map(e -> e.getName())
                    .filter(n -> n.endsWith(".class") && !n.startsWith("dev/tollgate/"))
                    .collect(Collectors.toList());
        }
    }

    /** Whether the jar holds an entry. */
    public static boolean has(Path jar, String entry) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.getEntry(entry) != null;
        }
    }
}
