package dev.tollgate.cli;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.engine.ClientBuckets;
import dev.tollgate.internal.engine.Engines;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * {@code java -jar tollgate-cli.jar inspect|reset --redis <uri> --policy <name> --client <key> [--namespace <ns>]}:
 * one client's buckets under one policy, shown or emptied, in the Redis the filters use, with their
 * key layout and configuration ({@link ClientBuckets}). The configuration is read as a filter on a
 * server without MicroProfile Config reads it: system properties, then {@code TOLLGATE_*}
 * environment variables, then {@code --config <file>} (a properties file of {@code tollgate.*}
 * keys, e.g. the {@code init-param}s of a {@code web.xml}), with {@code --redis} over all of them.
 *
 * <p>A reset on a production-looking Redis ({@link #productionLooking}) is refused unless
 * {@code --yes} is given; each reset is logged ({@code TOLLGATE-040}) with the OS user who ran the
 * tool and the client by fingerprint. Exit status: 0 done, 1 Redis did not answer, 2 a bad
 * argument or configuration, 3 a reset refused for want of {@code --yes}.
 */
public final class TollgateCli {

    static final String USAGE = String.join("\n",
            "usage: java -jar tollgate-cli.jar inspect|reset --redis <uri> --policy <name> --client <key>",
            "                                  [--namespace <ns>] [--config <file.properties>] [--yes]",
            "  inspect  shows the client's buckets under the policy: tokens left and time to full per limit,",
            "           a calendar quota's count and window, leases in flight, a pause",
            "  reset    deletes them (full buckets, quotas unused), logged with your user name",
            "  --client the client key as the policy's key resolver makes it, e.g. ip=198.51.100.7,",
            "           header.x-api-key=...",
            "  --namespace the application's namespace, as its TOLLGATE-010 line names it: by default its",
            "           context path, e.g. /shop (tollgate.namespace; default: 'default')",
            "  --yes    needed to reset on a production-looking Redis (TLS, or a host that is not loopback,",
            "           or a host name containing 'prod')");

    private TollgateCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv(), System.getProperty("user.name", "unknown")));
    }

    /** The tool, with its streams, environment and user given (for tests); returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env, String user) {
        Map<String, String> opts = new LinkedHashMap<>();
        String command = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--yes")) {
                opts.put("yes", "true");
            } else if (List.of("--redis", "--policy", "--client", "--config", "--namespace").contains(a) && i + 1 < args.length) {
                opts.put(a.substring(2), args[++i]);
            } else if (command == null && (a.equals("inspect") || a.equals("reset"))) {
                command = a;
            } else {
                err.println("unknown or incomplete argument '" + a + "'");
                err.println(USAGE);
                return 2;
            }
        }
        if (command == null || !opts.containsKey("redis") || !opts.containsKey("policy") || !opts.containsKey("client")) {
            err.println(USAGE);
            return 2;
        }
        String uri = opts.get("redis");
        String production;
        try {
            production = productionLooking(uri);
        } catch (IllegalArgumentException e) {
            err.println("--redis = '" + uri.replaceAll(":[^:@/]*@", ":****@") + "' is not valid: " + e.getMessage()
                    + "; accepted: redis://host:port or rediss://host:port, with user:password@ if Redis wants one");
            return 2;
        }
        if (command.equals("reset") && production != null && !opts.containsKey("yes")) {
            err.println("not reset: the Redis looks like production (" + production + "); run again with --yes if you mean it");
            return 3;
        }
        TollgateConfig config;
        try {
            config = TollgateConfig.load(lookup(uri, opts.get("namespace"), opts.get("config"), env),
                    TollgateCli.class.getClassLoader());
        } catch (ConfigException | IOException e) {
            err.println(e.getMessage());
            return 2;
        }
        Engines.Stores stores;
        try {
            stores = Engines.open(config);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return 2;
        }
        try {
            if (command.equals("inspect")) {
                out.print(ClientBuckets.inspect(config, stores.store(), opts.get("policy"), opts.get("client")));
            } else {
                out.println(ClientBuckets.reset(config, stores.store(), opts.get("policy"), opts.get("client"), "cli:" + user));
            }
            return 0;
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            err.println("Redis did not answer: " + e);
            return 1;
        } finally {
            stores.store().close();
            if (stores.fallback() != null) {
                stores.fallback().close();
            }
        }
    }

    /**
     * {@code --redis} and {@code --namespace} first, then system properties and environment, then the
     * {@code --config} file. A filter's namespace, unless {@code tollgate.namespace} sets it, is its
     * application's context path, which no file here says: hence {@code --namespace}.
     */
    private static ConfigLookup lookup(String uri, String namespace, String file, Map<String, String> env) throws IOException {
        Map<String, String> fromFile = new LinkedHashMap<>();
        if (file != null) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(Path.of(file))) {
                p.load(in);
            }
            p.stringPropertyNames().forEach(k -> fromFile.put(k, p.getProperty(k)));
        }
        Map<String, String> given = new LinkedHashMap<>(Map.of("tollgate.redis.uri", uri));
        if (namespace != null) {
            given.put("tollgate.namespace", namespace);
        }
        return ConfigLookup.of(ConfigSources.of("the command line", given), ConfigSources.system(env),
                ConfigSources.of(file == null ? "--config" : file, fromFile));
    }

    /**
     * Why a Redis looks like production, or {@code null} when it does not: TLS ({@code rediss://}),
     * a host that is not loopback ({@code localhost}, {@code 127.0.0.0/8}, {@code ::1}), or a host
     * name containing {@code prod}. A test or development Redis runs on the operator's own machine;
     * anything else is treated as someone's production until they say otherwise.
     *
     * @throws IllegalArgumentException when {@code uri} is not a {@code redis://} or {@code rediss://} URI with a host
     */
    static String productionLooking(String uri) {
        URI u;
        try {
            u = new URI(uri);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalArgumentException("the scheme is '" + scheme + "'");
        }
        String host = u.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("no host");
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.contains("prod")) {
            return "the host name contains 'prod'";
        }
        if (scheme.equals("rediss")) {
            return "TLS, rediss://";
        }
        boolean loopback = h.equals("localhost") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")
                || h.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
        return loopback ? null : "host " + host + " is not a loopback address";
    }
}
