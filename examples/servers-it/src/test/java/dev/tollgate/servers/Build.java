package dev.tollgate.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the build put things: the unpacked servers, the WARs, the work directory. The failsafe
 * configuration in this module's {@code pom.xml} sets these system properties.
 */
final class Build {

    private Build() {
    }

    static Path serversDir() {
        return dir("tg.servers.dir");
    }

    static Path warsDir() {
        return dir("tg.wars.dir");
    }

    /** The jars the build copied for a server's shared {@code lib/} (the servlet drop-in jar). */
    static Path libsDir() {
        return dir("tg.libs.dir");
    }

    static Path workDir() {
        return dir("tg.work.dir");
    }

    static String version(String server) {
        return property("tg.version." + server);
    }

    /** The JVM that runs the servers: this one's, unless {@code -Dtg.servers.java=/path/to/bin/java}. */
    static Path java() {
        String override = System.getProperty("tg.servers.java");
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** The one directory inside {@code dir}, e.g. {@code apache-tomcat-10.1.60} inside the unpack target. */
    static Path onlyDirectoryIn(Path dir) {
        try (Stream<Path> children = Files.list(dir)) {
            List<Path> dirs = children.filter(Files::isDirectory).collect(Collectors.toList());
            if (dirs.size() != 1) {
                throw new IllegalStateException("Expected exactly one unpacked server in " + dir + ", found " + dirs);
            }
            return dirs.get(0);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + dir + " (did the build unpack the servers?)", e);
        }
    }

    private static Path dir(String property) {
        return Path.of(property(property));
    }

    private static String property(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("System property " + name + " is not set. Run these tests through Maven,"
                    + " which unpacks the servers and sets it: mvn verify -pl examples/servers-it -am");
        }
        return v;
    }
}
