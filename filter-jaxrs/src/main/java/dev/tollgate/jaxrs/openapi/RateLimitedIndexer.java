package dev.tollgate.jaxrs.openapi;

import java.io.IOException;
import java.io.Writer;
import java.util.Set;
import java.util.TreeSet;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;
import javax.tools.StandardLocation;

/**
 * Writes, while an application compiles, which of its classes {@link TollgateOpenApiFilter} must
 * read: those with {@code @RateLimited} on the class or a method, and its JAX-RS
 * {@code Application} classes ({@code @ApplicationPath}). The OpenAPI document is built from the
 * server's own index of the classes; the MicroProfile OpenAPI model does not say which Java method
 * an operation is, and the JAX-RS runtime that knows has not started when the document is built.
 *
 * <p>javac runs it by itself from the class path (it is registered in this jar's
 * {@code META-INF/services}); from Java 23 on only when asked, with {@code -proc:full} or this
 * class in {@code -processorpath}. It claims no annotation, changes nothing else, loads no
 * MicroProfile OpenAPI type (an application without it compiles as before), and never fails a compile.
 *
 * <p>Not thread-safe: javac makes one per compilation and calls it from one thread.
 */
@SupportedAnnotationTypes({OpenApiIndex.RATE_LIMITED, OpenApiIndex.APPLICATION_PATH})
public final class RateLimitedIndexer extends AbstractProcessor {

    private final Set<String> lines = new TreeSet<>();

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        try {
            index(annotations, round);
        } catch (RuntimeException | LinkageError e) {
            processingEnv.getMessager().printMessage(Diagnostic.Kind.WARNING, "Tollgate: " + OpenApiIndex.INDEX
                    + " not written (" + e + "); the OpenAPI document will not show the 429 of @RateLimited operations");
        }
        return false;
    }

    private void index(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        for (TypeElement annotation : annotations) {
            String kind = annotation.getQualifiedName().contentEquals(OpenApiIndex.APPLICATION_PATH)
                    ? OpenApiIndex.APPLICATION : OpenApiIndex.RESOURCE;
            for (Element e : round.getElementsAnnotatedWith(annotation)) {
                Element type = e;
                while (type != null && !(type instanceof TypeElement)) {
                    type = type.getEnclosingElement();
                }
                if (type != null) {
                    lines.add(kind + " " + processingEnv.getElementUtils().getBinaryName((TypeElement) type));
                }
            }
        }
        if (round.processingOver() && !lines.isEmpty()) {
            try (Writer w = processingEnv.getFiler().createResource(StandardLocation.CLASS_OUTPUT, "",
                    OpenApiIndex.INDEX).openWriter()) {
                w.write("# written by dev.tollgate.jaxrs.openapi.RateLimitedIndexer for TollgateOpenApiFilter\n");
                for (String line : lines) {
                    w.write(line);
                    w.write('\n');
                }
            } catch (IOException | RuntimeException e) {
                processingEnv.getMessager().printMessage(Diagnostic.Kind.WARNING, "Tollgate: "
                        + OpenApiIndex.INDEX + " not written (" + e + "); the OpenAPI document will not show"
                        + " the 429 of @RateLimited operations");
            }
        }
    }
}
