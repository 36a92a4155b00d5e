package dev.tollgate.jaxrs.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application compiled against this module the way a user's build does it: javac finds
 * {@link RateLimitedIndexer} on the class path by itself, and the application has no MicroProfile
 * OpenAPI (Tomcat): it compiles, and gets its index.
 */
class IndexerCompileTest {

    @TempDir
    Path dir;

    @Test
    void anApplicationWithoutMicroProfileOpenApiCompilesAndGetsItsIndex() throws IOException {
        Path src = dir.resolve("src/com/example/Api.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, """
                package com.example;

                import dev.tollgate.jaxrs.RateLimited;
                import jakarta.ws.rs.GET;
                import jakarta.ws.rs.Path;

                @Path("/things")
                public class Api {
                    @GET
                    @RateLimited("default")
                    public String things() {
                        return "";
                    }
                }
                """);
        // this module's classes (with META-INF/services) and JAX-RS; none of MicroProfile OpenAPI
        List<String> classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.endsWith(Path.of("filter-jaxrs", "target", "classes").toString())
                        || e.contains("jakarta.ws.rs-api"))
                .collect(Collectors.toList());
        assertEquals(2, classPath.size(), "this module's classes and JAX-RS: " + classPath);
        assertTrue(classPath.stream().noneMatch(e -> e.contains("microprofile-openapi")));
        Path out = dir.resolve("classes");
        Files.createDirectories(out);
        // javac in a process of its own: in this JVM its processors' loader would see this module's test class path
        List<String> args = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                "-proc:full", "-classpath", String.join(File.pathSeparator, classPath), "-d", out.toString(), src.toString()));
        if (Runtime.version().feature() < 21) {
            args.remove("-proc:full"); // the default before Java 21 (and unknown to 17): processors on the class path run
        }
        Process javac = new ProcessBuilder(args).redirectErrorStream(true).start();
        String messages = new String(javac.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        boolean ok;
        try {
            ok = javac.waitFor() == 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertTrue(ok, "the application compiles: " + messages);
        Path index = out.resolve(OpenApiIndex.INDEX);
        assertTrue(Files.exists(index), "the processor ran: " + messages);
        assertTrue(Files.readAllLines(index).contains("resource com.example.Api"), Files.readString(index));
        assertTrue(!messages.contains("Tollgate"), "no warning: " + messages);
    }
}
