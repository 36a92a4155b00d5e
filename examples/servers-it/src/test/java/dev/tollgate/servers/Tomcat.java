package dev.tollgate.servers;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Apache Tomcat from its distribution zip. Each run gets its own {@code CATALINA_BASE} (the
 * distribution's {@code conf}, empty {@code logs temp work webapps}, the WAR as
 * {@code webapps/<context>.war}); {@code server.xml} is changed to have no shutdown port and one
 * HTTP connector on 127.0.0.1 whose port is the system property {@code tg.http.port}. The JVM is
 * started as {@code catalina.sh run} would start it, minus the shell, so that stopping the process
 * stops Tomcat.
 */
final class Tomcat implements AppServer {

    private static final Pattern MODULE_OPTION =
            Pattern.compile("^(?:JAVA_OPTS|JDK_JAVA_OPTIONS)=\"\\$(?:JAVA_OPTS|JDK_JAVA_OPTIONS) (--(?:add-opens|add-exports|enable-native-access)=[^\"\\s$]+)\"\\s*$",
                    Pattern.MULTILINE);

    private final String id;
    private final String version;
    private final Path home;

    Tomcat(String id, String version, Path home) {
        this.id = id;
        this.version = version;
        this.home = home;
    }

    @Override
    public String name() {
        return "Tomcat " + version;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public int portCount() {
        return 1;
    }

    @Override
    public Duration startTimeout() {
        return Duration.ofSeconds(90);
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        for (String d : List.of("logs", "temp", "work", "webapps")) {
            Files.createDirectories(base.resolve(d));
        }
        copyTree(home.resolve("conf"), base.resolve("conf"));
        configureServerXml(base.resolve("conf").resolve("server.xml"));
        for (Deployment d : deployments) {
            Files.copy(d.war(), base.resolve("webapps").resolve(d.warFileName()));
        }

        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Dcatalina.home=" + home);
        cmd.add("-Dcatalina.base=" + base);
        cmd.add("-Djava.io.tmpdir=" + base.resolve("temp"));
        cmd.add("-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager");
        cmd.add("-Djava.util.logging.config.file=" + base.resolve("conf").resolve("logging.properties"));
        cmd.addAll(moduleOptions());
        cmd.add("-Dtg.http.port=" + ports[0]);
        // A connector that cannot bind makes Tomcat exit instead of running deaf (the port race is retried).
        cmd.add("-Dorg.apache.catalina.startup.EXIT_ON_INIT_FAILURE=true");
        cmd.add("-cp");
        cmd.add(home.resolve("bin").resolve("bootstrap.jar") + File.pathSeparator
                + home.resolve("bin").resolve("tomcat-juli.jar"));
        cmd.add("org.apache.catalina.startup.Bootstrap");
        cmd.add("start");
        return cmd;
    }

    /**
     * Catalina has started: the host deployed every WAR in {@code webapps} (successfully or not)
     * before the connector starts and before this line is logged.
     */
    @Override
    public boolean started(ServerProcess server) {
        return server.logContains("org.apache.catalina.startup.Catalina.start Server startup in");
    }

    /** The {@code --add-opens} (and similar) options that this version's {@code catalina.sh} adds (Tomcat 9: to JDK_JAVA_OPTIONS). */
    private List<String> moduleOptions() throws IOException {
        String script = Files.readString(home.resolve("bin").resolve("catalina.sh"), StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>();
        Matcher m = MODULE_OPTION.matcher(script);
        while (m.find()) {
            options.add(m.group(1));
        }
        if (options.isEmpty()) {
            throw new IllegalStateException("No --add-opens options found in " + home.resolve("bin/catalina.sh")
                    + "; has its format changed?");
        }
        return options;
    }

    /** No shutdown port; exactly one HTTP connector, on 127.0.0.1 and port ${tg.http.port}; no AJP or TLS. */
    static void configureServerXml(Path serverXml) throws IOException {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setExpandEntityReferences(false);
            Document doc = f.newDocumentBuilder().parse(serverXml.toFile());
            Element server = doc.getDocumentElement();
            if (!server.getTagName().equals("Server")) {
                throw new IllegalStateException(serverXml + " does not start with <Server>");
            }
            server.setAttribute("port", "-1");
            NodeList connectors = doc.getElementsByTagName("Connector");
            List<Element> others = new ArrayList<>();
            int http = 0;
            for (int i = 0; i < connectors.getLength(); i++) {
                Element c = (Element) connectors.item(i);
                String protocol = c.getAttribute("protocol");
                boolean plainHttp = (protocol.isEmpty() || protocol.equals("HTTP/1.1") || protocol.contains("Http11"))
                        && !"true".equalsIgnoreCase(c.getAttribute("SSLEnabled"));
                if (plainHttp) {
                    c.setAttribute("port", "${tg.http.port}");
                    c.setAttribute("address", "127.0.0.1");
                    http++;
                } else {
                    others.add(c);
                }
            }
            others.forEach(c -> c.getParentNode().removeChild(c));
            if (http != 1) {
                throw new IllegalStateException("Expected one HTTP connector in " + serverXml + ", found " + http);
            }
            Transformer t = TransformerFactory.newInstance().newTransformer();
            t.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
            t.transform(new DOMSource(doc), new StreamResult(serverXml.toFile()));
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Cannot rewrite " + serverXml + ": " + e, e);
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
