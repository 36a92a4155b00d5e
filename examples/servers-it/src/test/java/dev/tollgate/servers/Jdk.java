package dev.tollgate.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a JDK of a given feature release (25, say) on this machine at run time, for the servers
 * that must run on a Java other than the build's. In this order:
 * <ol>
 *   <li>the system property {@code tollgate.it.java<N>} (e.g. {@code -Dtollgate.it.java25=...}),</li>
 *   <li>the environment variable {@code JAVA<N>_HOME},</li>
 *   <li>the JDKs installed next to the build's own JDK or next to {@code JAVA_HOME}'s (the other
 *       directories of its parent: Debian's packages and Temurin's put every JDK in one directory).</li>
 * </ol>
 * A JDK is a directory with {@code bin/java} and a {@code release} file whose
 * {@code JAVA_VERSION} is of that release. A path given by the operator (1, 2) that is not such a
 * JDK is an error, not a skip: they asked for it. Stateless; thread-safe.
 */
final class Jdk {

    private static final Pattern JAVA_VERSION = Pattern.compile("^JAVA_VERSION=\"([0-9][^\"]*)\"", Pattern.MULTILINE);

    private Jdk() {
    }

    /** The {@code bin/java} of a JDK of release {@code feature}, or empty when this machine has none. */
    static Optional<Path> java(int feature) {
        String property = propertyName(feature);
        String given = System.getProperty(property);
        if (given != null && !given.isBlank()) {
            return Optional.of(require(Path.of(given.strip()), feature, "-D" + property));
        }
        String env = System.getenv(envName(feature));
        if (env != null && !env.isBlank()) {
            return Optional.of(require(Path.of(env.strip()), feature, envName(feature)));
        }
        return installed().stream()
                .filter(home -> feature(home).filter(f -> f == feature).isPresent())
                // the newest update of that release, when there are several
                .max(Comparator.comparing(home -> javaVersion(home).orElse("")))
                .map(home -> home.resolve("bin").resolve("java"));
    }

    /** What an operator does to give these tests that JDK; said when it is missing. */
    static String howToProvide(int feature) {
        return "install a JDK " + feature + " in the directory that holds the build's JDK, or point to one with -D" + propertyName(feature)
                + "=<JDK home> or " + envName(feature) + "=<JDK home>";
    }

    private static String propertyName(int feature) {
        return "tollgate.it.java" + feature;
    }

    private static String envName(int feature) {
        return "JAVA" + feature + "_HOME";
    }

    /** A JDK home or its bin/java, given by the operator; its java executable. */
    private static Path require(Path given, int feature, String from) {
        Path home = given.endsWith(Path.of("bin", "java")) ? given.getParent().getParent() : given;
        Optional<Integer> found = feature(home);
        if (found.isEmpty() || found.get() != feature || !Files.isExecutable(home.resolve("bin").resolve("java"))) {
            throw new IllegalStateException(from + " = " + given + " is not a JDK " + feature + " (its release file says "
                    + javaVersion(home).orElse("nothing") + "); give the home directory of a JDK " + feature);
        }
        return home.resolve("bin").resolve("java");
    }

    private static List<Path> installed() {
        Set<Path> roots = new LinkedHashSet<>();
        for (String jdk : new String[] {System.getProperty("java.home"), System.getenv("JAVA_HOME")}) {
            if (jdk == null || jdk.isBlank()) {
                continue;
            }
            try {
                Path parent = Path.of(jdk).toRealPath().getParent();
                if (parent != null) {
                    roots.add(parent);
                }
            } catch (IOException e) {
                // a JAVA_HOME that does not exist: nothing to find next to it
            }
        }
        List<Path> homes = new ArrayList<>();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> children = Files.list(root)) {
                children.filter(d -> Files.isRegularFile(d.resolve("release")) && Files.isExecutable(d.resolve("bin").resolve("java")))
                        .forEach(homes::add);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot list " + root, e);
            }
        }
        return homes;
    }

    /** "25.0.3" from the JDK's release file. */
    private static Optional<String> javaVersion(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release)) {
            return Optional.empty();
        }
        try {
            Matcher m = JAVA_VERSION.matcher(Files.readString(release, StandardCharsets.UTF_8));
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** 25 for "25.0.3" or "25"; 8 for "1.8.0_452". */
    static Optional<Integer> feature(Path home) {
        return javaVersion(home).map(v -> {
            String[] parts = v.split("[.+_-]");
            int first = Integer.parseInt(parts[0]);
            return first == 1 && parts.length > 1 ? Integer.parseInt(parts[1]) : first;
        });
    }
}
