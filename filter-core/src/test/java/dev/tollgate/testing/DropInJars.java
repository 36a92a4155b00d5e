package dev.tollgate.testing;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.InvocationTargetException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** Checks on an adapter's drop-in jar ({@code *-all.jar}, built by maven-shade-plugin). */
public final class DropInJars {

    /** What the drop-in jars bundle besides Tollgate: each must stay visible to scanners, with its licence. */
    public static final Set<String> BUNDLED = Set.of(
            "redis.clients:jedis",
            "redis.clients.authentication:redis-authx-core",
            "org.apache.commons:commons-pool2",
            "com.google.code.gson:gson",
            "org.json:json",
            "org.slf4j:slf4j-api",
            "org.slf4j:slf4j-jdk14");

    private static final Pattern POM_PROPERTIES = Pattern.compile("META-INF/maven/([^/]+)/([^/]+)/pom\\.properties");
    private static final Pattern LICENCE_OR_NOTICE = Pattern.compile("META-INF/((?i:licen[cs]e|notice)[^/]*)");
    private static final Pattern MAVEN_PURL = Pattern.compile("pkg:maven/([^/]+)/([^@]+)@([^?#]+)(\\?[^#]*)?");

    private DropInJars() {
    }

    /** The drop-in jar of the module under test, from its {@code target/}. */
    public static Path find(String artifactId) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            return files.filter(p -> p.getFileName().toString().matches(artifactId + "-.*-all\\.jar"))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + artifactId + " drop-in jar in target/"));
        }
    }

    /** The module's own jar, without dependencies, from its {@code target/}. */
    public static Path findThin(String artifactId) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            return files.filter(p -> p.getFileName().toString().matches(artifactId + "-\\d[^-]*(-SNAPSHOT)?\\.jar"))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + artifactId + " jar in target/"));
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

    /**
     * What a scanner or a lawyer would miss in the jar, one line per problem (empty when nothing):
     * the bundled artifacts (by their {@code META-INF/maven/<g>/<a>/pom.properties}) must be exactly
     * {@link #BUNDLED} plus Tollgate's own; each has its pom.xml and a licence under
     * {@code META-INF/licenses/<artifactId>/}; every licence or notice file the artifact's own jar
     * carries is there unchanged; and the jar's top-level {@code META-INF/LICENSE} and {@code NOTICE}
     * are Tollgate's, with no other licence file left beside them to be mistaken for the whole jar's.
     */
    public static List<String> supplyChainProblems(Path jar) throws IOException {
        List<String> problems = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            Map<String, Properties> found = new TreeMap<>();
            for (JarEntry e : j.stream().collect(Collectors.toList())) {
                Matcher m = POM_PROPERTIES.matcher(e.getName());
                if (m.matches()) {
                    Properties p = new Properties();
                    try (InputStream in = j.getInputStream(e)) {
                        p.load(in);
                    }
                    String coordinates = m.group(1) + ":" + m.group(2);
                    if (!coordinates.equals(p.getProperty("groupId") + ":" + p.getProperty("artifactId"))) {
                        problems.add(e.getName() + " names " + p.getProperty("groupId") + ":" + p.getProperty("artifactId"));
                    }
                    found.put(coordinates, p);
                }
            }
            Set<String> thirdParty = found.keySet().stream().filter(c -> !c.startsWith("dev.tollgate:"))
                    .collect(Collectors.toCollection(TreeSet::new));
            if (!thirdParty.equals(new TreeSet<>(BUNDLED))) {
                problems.add("bundled artifacts with a pom.properties: " + thirdParty + ", expected " + new TreeSet<>(BUNDLED));
            }
            for (String coordinates : thirdParty) {
                String[] ga = coordinates.split(":");
                String artifactId = ga[1];
                if (j.getEntry("META-INF/maven/" + ga[0] + "/" + artifactId + "/pom.xml") == null) {
                    problems.add(coordinates + ": no pom.xml");
                }
                String licences = "META-INF/licenses/" + artifactId + "/";
                boolean licensed = j.stream().anyMatch(e -> e.getName().startsWith(licences) && !e.isDirectory() && e.getSize() > 0);
                if (!licensed) {
                    problems.add(coordinates + ": no licence under " + licences);
                }
                problems.addAll(ownLicencesKept(j, coordinates, found.get(coordinates).getProperty("version")));
            }
            problems.addAll(sameAs(j, "META-INF/LICENSE", Path.of("..", "LICENSE")));
            problems.addAll(sameAs(j, "META-INF/NOTICE", Path.of("..", "NOTICE")));
            j.stream().map(JarEntry::getName)
                    .filter(n -> LICENCE_OR_NOTICE.matcher(n).matches() && !n.equals("META-INF/LICENSE") && !n.equals("META-INF/NOTICE"))
                    .forEach(n -> problems.add(n + " sits beside Tollgate's own licence: whose is it?"));
        }
        return problems;
    }

    /** Every licence or notice file in the artifact's own jar (from the test class path) is in the drop-in jar unchanged. */
    private static List<String> ownLicencesKept(JarFile dropIn, String coordinates, String version) throws IOException {
        String artifactId = coordinates.split(":")[1];
        String fileName = artifactId + "-" + version + ".jar";
        Path original = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).filter(p -> p.getFileName() != null && p.getFileName().toString().equals(fileName))
                .findFirst().orElse(null);
        if (original == null) {
            return List.of(coordinates + ": " + fileName + " is not on the test class path to compare its licence with");
        }
        List<String> problems = new ArrayList<>();
        try (JarFile own = new JarFile(original.toFile())) {
            for (JarEntry e : own.stream().collect(Collectors.toList())) {
                Matcher m = LICENCE_OR_NOTICE.matcher(e.getName());
                if (m.matches()) {
                    String kept = "META-INF/licenses/" + artifactId + "/" + m.group(1);
                    JarEntry copy = dropIn.getJarEntry(kept);
                    if (copy == null) {
                        problems.add(coordinates + ": its " + e.getName() + " is not kept as " + kept);
                    } else if (!Arrays.equals(bytes(own, e), bytes(dropIn, copy))) {
                        problems.add(coordinates + ": " + kept + " differs from its " + e.getName() + " (upgraded? copy it again into licenses/)");
                    }
                }
            }
        }
        return problems;
    }

    private static List<String> sameAs(JarFile j, String entry, Path file) throws IOException {
        JarEntry e = j.getJarEntry(entry);
        if (e == null) {
            return List.of("no " + entry);
        }
        return Arrays.equals(bytes(j, e), Files.readAllBytes(file)) ? List.of() : List.of(entry + " is not " + file.normalize());
    }

    private static byte[] bytes(JarFile j, JarEntry e) throws IOException {
        try (InputStream in = j.getInputStream(e)) {
            return in.readAllBytes();
        }
    }

    /**
     * The drop-in jar's CycloneDX SBOM from the module's {@code target/} ({@code bom-all.xml} or
     * {@code bom-all.json}, attached as {@code <artifactId>-<version>-all-cyclonedx.<format>}), or null
     * when the build made none. Maven skips the SBOM goal in an offline build: see {@link #builtOffline()}.
     */
    public static Path dropInSbom(String format) {
        Path sbom = Path.of("target", "bom-all." + format);
        return Files.isRegularFile(sbom) ? sbom : null;
    }

    /** Whether Maven ran offline: {@code tollgate.maven.session} is {@code offline=true} (the module's failsafe configuration). */
    public static boolean builtOffline() {
        return "offline=true".equals(System.getProperty("tollgate.maven.session"));
    }

    /**
     * What the drop-in jar's SBOM gets wrong about the jar, one line per problem (empty when nothing): the
     * components it names (the one it describes and those it lists, as {@code group:artifact:version}) must be
     * exactly the artifacts the jar holds by their {@code META-INF/maven/<g>/<a>/pom.properties}, Tollgate's
     * own included, and each must be a plain jar.
     */
    public static List<String> sbomProblems(Path jar, Path sbom) throws Exception {
        List<String> problems = new ArrayList<>();
        Set<String> inJar = new TreeSet<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            for (JarEntry e : j.stream().collect(Collectors.toList())) {
                if (POM_PROPERTIES.matcher(e.getName()).matches()) {
                    Properties p = new Properties();
                    try (InputStream in = j.getInputStream(e)) {
                        p.load(in);
                    }
                    inJar.add(p.getProperty("groupId") + ":" + p.getProperty("artifactId") + ":" + p.getProperty("version"));
                }
            }
        }
        List<String> purls = sbom.toString().endsWith(".json") ? jsonPurls(sbom) : xmlPurls(sbom);
        Set<String> named = new TreeSet<>();
        for (String purl : purls) {
            Matcher m = MAVEN_PURL.matcher(purl);
            if (!m.matches()) {
                problems.add(sbom + ": not a Maven package URL: " + purl);
                continue;
            }
            if (!"?type=jar".equals(m.group(4))) {
                problems.add(sbom + ": not a plain jar: " + purl);
            }
            if (!named.add(m.group(1) + ":" + m.group(2) + ":" + m.group(3))) {
                problems.add(sbom + ": named twice: " + purl);
            }
        }
        if (!named.equals(inJar)) {
            Set<String> notInJar = new TreeSet<>(named);
            notInJar.removeAll(inJar);
            Set<String> notNamed = new TreeSet<>(inJar);
            notNamed.removeAll(named);
            problems.add(sbom + " names what the jar does not hold: " + notInJar + "; the jar holds what it does not name: " + notNamed);
        }
        return problems;
    }

    /** The package URLs of the described component and of the listed components of a CycloneDX XML SBOM. */
    private static List<String> xmlPurls(Path sbom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document doc = factory.newDocumentBuilder().parse(sbom.toFile());
        NodeList all = doc.getElementsByTagNameNS("*", "purl");
        List<String> purls = new ArrayList<>();
        for (int i = 0; i < all.getLength(); i++) {
            Node component = all.item(i).getParentNode();
            String where = component.getParentNode().getLocalName();
            if ("component".equals(component.getLocalName()) && ("metadata".equals(where) || "components".equals(where))) {
                purls.add(all.item(i).getTextContent().trim());
            }
        }
        return purls;
    }

    /** The same from a CycloneDX JSON SBOM. */
    private static List<String> jsonPurls(Path sbom) throws IOException {
        JsonObject bom = JsonParser.parseString(Files.readString(sbom)).getAsJsonObject();
        List<String> purls = new ArrayList<>();
        purls.add(bom.getAsJsonObject("metadata").getAsJsonObject("component").get("purl").getAsString());
        for (JsonElement component : bom.getAsJsonArray("components")) {
            purls.add(component.getAsJsonObject().get("purl").getAsString());
        }
        return purls;
    }

    /** The {@code Automatic-Module-Name} of the jar's manifest, or null. */
    public static String automaticModuleName(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.getManifest() == null ? null : j.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        }
    }

    /** The module the JVM makes of the jar on a module path (automatic: from its manifest, its packages and services). */
    public static ModuleDescriptor moduleOnModulePath(Path jar) {
        Set<ModuleReference> all = ModuleFinder.of(jar).findAll();
        if (all.size() != 1) {
            throw new AssertionError("expected one module in " + jar + ", found " + all);
        }
        return all.iterator().next().descriptor();
    }

    /** What the drop-in jar's Jedis logged through java.util.logging, what SLF4J printed, and its logger factory. */
    public record JedisLog(List<String> julRecords, List<String> slf4jLines, String loggerFactory) {
    }

    /**
     * Loads the drop-in jar in a class loader of its own, lets its Jedis look for a Redis master
     * through a sentinel address where nothing listens (Jedis logs at INFO and WARNING while it
     * tries, then throws), and collects what arrived at java.util.logging under
     * {@code dev.tollgate.shaded.redis.clients} and what SLF4J printed on System.err.
     */
    public static JedisLog jedisLogThrough(Path jar) throws Exception {
        Logger jul = Logger.getLogger("dev.tollgate.shaded.redis.clients");
        List<String> records = new ArrayList<>();
        Handler collect = new Handler() {
            @Override
            public void publish(LogRecord r) {
                synchronized (records) {
                    records.add(r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level level = jul.getLevel();
        boolean parents = jul.getUseParentHandlers();
        jul.setLevel(Level.INFO);
        jul.setUseParentHandlers(false);
        jul.addHandler(collect);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        String factory;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            int nobody;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                nobody = s.getLocalPort();
            }
            Class<?> pool = loader.loadClass("dev.tollgate.shaded.redis.clients.jedis.JedisSentinelPool");
            try {
                pool.getConstructor(String.class, Set.class).newInstance("tollgate-no-master", Set.of("127.0.0.1:" + nobody));
                throw new AssertionError("a sentinel pool with no sentinel must not start");
            } catch (InvocationTargetException expected) {
                // "All sentinels down": the log lines before it are the point
            }
            factory = loader.loadClass("dev.tollgate.shaded.slf4j.LoggerFactory").getMethod("getILoggerFactory")
                    .invoke(null).getClass().getName();
        } finally {
            System.setErr(stderr);
            jul.removeHandler(collect);
            jul.setUseParentHandlers(parents);
            jul.setLevel(level);
        }
        List<String> slf4j = err.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("SLF4J")).collect(Collectors.toList());
        synchronized (records) {
            return new JedisLog(List.copyOf(records), slf4j, factory);
        }
    }
}
