package dev.tollgate.docs;

import dev.tollgate.testing.TestConfigs;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSource;
import dev.tollgate.config.Setting;
import dev.tollgate.config.Settings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.config.text.ConfigMessages;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.engine.ConfigDescription;
import dev.tollgate.internal.redis.RedisVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the reference pages, docs/reference/configuration.md from {@link Settings#GROUPS} and
 * docs/reference/messages.md from {@link Messages#CATALOG}. {@code ReferencePagesTest} fails while
 * a page on disk differs from what is written here, and writes them with {@value #WRITE_PROPERTY}
 * set: {@value #COMMAND}. The pages hold no date, so the same code writes the same bytes.
 * Stateless.
 */
public final class ReferencePages {

    private ReferencePages() {
    }

    /** The system property that makes {@code ReferencePagesTest} write the pages instead of comparing. */
    public static final String WRITE_PROPERTY = "reference-pages";

    /** What a maintainer types to write the pages, from the project's root. */
    public static final String COMMAND = "mvn -o -q -pl filter-core test -Dtest=ReferencePagesTest -D"
            + WRITE_PROPERTY + "=write";

    /** The pages, by their path from the project's root. */
    public static Map<String, String> pages() {
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("docs/reference/configuration.md", configuration());
        pages.put("docs/reference/messages.md", messages());
        return pages;
    }

    /** Writes every page under {@code root}, the project's root directory (default: the working directory). */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        for (Map.Entry<String, String> page : pages().entrySet()) {
            Path file = root.resolve(page.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, page.getValue());
        }
    }

    private static String generatedFrom(String source) {
        return "<!-- Generated from " + source + " by `" + COMMAND + "`, run from the project's root.\n"
                + "     Do not edit this page: change the code and run that command. ReferencePagesTest fails while\n"
                + "     this page differs from what the command writes. -->\n\n";
    }

    static String configuration() {
        StringBuilder sb = new StringBuilder(generatedFrom("dev.tollgate.config.Settings"));
        sb.append("# Configuration reference\n\n");
        sb.append("""
                Every key Tollgate reads, with its environment variable, its default, the values it accepts
                and what it does.

                Every key can come from, highest precedence first:

                1. MicroProfile Config, when the server has it (WildFly, Payara): system properties,
                   environment variables, the server's own configuration. On a server without it (Tomcat),
                   Tollgate reads system properties and environment variables itself, with the same rule.
                2. The filter's `init-param`s in `web.xml`.
                3. The application's `context-param`s.
                4. The defaults below.

                Environment variable names follow the MicroProfile Config rule: every character that is not
                a letter or digit becomes `_`, then upper case. Policy names are declared in
                `tollgate.policies`, and each policy's keys are then read by their exact names, so a policy
                named `free-tier` has its limits in `TOLLGATE_POLICY_FREE_TIER_LIMITS`; a plan's keys likewise,
                once `tollgate.plans` declares it. An empty value counts as not set.

                A bad value stops the application from starting: the message
                ([`TOLLGATE-001`](messages.md#tollgate-001)) names the key, the value, where the value came
                from and what is accepted, and every problem is listed at once. A `tollgate.*` key or
                `TOLLGATE_*` variable that matches no key is logged with the nearest key
                ([`TOLLGATE-004`](messages.md#tollgate-004)), and a key of a policy or plan that is not
                declared likewise ([`TOLLGATE-005`](messages.md#tollgate-005)); with
                `tollgate.strict-config=true` these stop the start too.

                """);
        for (Settings.Group g : Settings.GROUPS) {
            sb.append("- [").append(g.title()).append("](#").append(anchor(g.title())).append(")\n");
        }
        for (Settings.Group g : Settings.GROUPS) {
            sb.append("\n## ").append(g.title()).append("\n\n").append(g.about()).append("\n\n");
            sb.append("| key and environment variable | default | accepted | what it does |\n");
            sb.append("|---|---|---|---|\n");
            for (Setting<?> s : g.settings()) {
                sb.append("| `").append(s.name()).append("`<br>`").append(s.environmentName()).append("` | ")
                        .append(s.shownDefault().replace("|", "\\|")).append(" | ").append(markdown(s.accepted()))
                        .append(" | ").append(linked(s.meaning().replace("|", "\\|"), null, "messages.md"))
                        .append(" |\n");
            }
        }
        return sb.toString();
    }

    static String messages() {
        StringBuilder sb = new StringBuilder(generatedFrom("dev.tollgate.internal.Messages"));
        sb.append("# Messages reference\n\n");
        sb.append("""
                Every line Tollgate logs for an operator starts with an id, `TOLLGATE-0xx`, to search logs for.
                An id keeps its meaning: it is never reused for another. The level is the one the line is
                usually logged at; the meaning says when it is another. A line never names a client in the
                clear (unless `tollgate.log.client-keys=clear`), nor a password.

                | id | level | meaning |
                |---|---|---|
                """);
        for (Messages.Entry e : Messages.CATALOG) {
            sb.append("| [`").append(e.id()).append("`](#").append(anchor(e.id())).append(") | ").append(e.level())
                    .append(" | ").append(firstSentence(e.meaning()).replace("|", "\\|")).append(" |\n");
        }
        Map<String, String> examples = examples();
        for (Messages.Entry e : Messages.CATALOG) {
            sb.append("\n## ").append(e.id()).append("\n\n");
            sb.append("Level: ").append(e.level()).append(".\n\n");
            sb.append("**What it means.** ").append(linked(e.meaning(), e.id(), "")).append("\n\n");
            sb.append("**What to do.** ").append(linked(e.action(), e.id(), "")).append("\n\n");
            sb.append("For example:\n\n```\n").append(examples.get(e.id())).append("\n```\n");
        }
        return sb.toString();
    }

    /**
     * A line of each id as Tollgate writes it, from the same code, with example facts; the
     * configuration's lines come from loading a configuration that has the problem.
     */
    static Map<String, String> examples() {
        Map<String, String> x = new LinkedHashMap<>();
        x.put(ConfigMessages.BAD_VALUE, problem(Map.of("TOLLGATE_POLICY_DEFAULT_LIMITS", "10/fortnight")));
        x.put(ConfigMessages.MISSING_VALUE, problem(Map.of("TOLLGATE_POLICIES", "api")));
        x.put(Messages.UNKNOWN_POLICY, Messages.unknownPolicy("@RateLimited on com.example.Reports#export", "exports",
                List.of("api", "login")));
        x.put(ConfigMessages.UNKNOWN_KEY, warning(Map.of("TOLLGATE_POLICIES", "api", "TOLLGATE_POLICY_API_LIMITS", "10/s",
                "TOLLGATE_POLICY_API_LIMTS", "100/min")));
        x.put(ConfigMessages.UNDECLARED_KEY, warning(Map.of("TOLLGATE_POLICIES", "api", "TOLLGATE_POLICY_API_LIMITS", "10/s",
                "TOLLGATE_POLICY_LOGIN_LIMITS", "5/min")));
        TollgateConfig config = load(Map.of("TOLLGATE_REDIS_URI", "redis://app:secret@redis.internal:6379",
                "TOLLGATE_POLICIES", "api", "TOLLGATE_POLICY_API_LIMITS", "10/s burst 20; 1000/day",
                "TOLLGATE_POLICY_API_KEY", "header:X-Api-Key"));
        String target = TestConfigs.redis(config).describe();
        String description = ConfigDescription.of(config);
        x.put(Messages.STARTED, Messages.started("tollgate", true, "store " + target + " (timeout 100 ms, failure mode"
                + " local)", description));
        x.put(Messages.METRICS, Messages.metricsGoTo("Micrometer", "the server's MeterRegistry (CDI bean)"));
        x.put(Messages.RELOADED, Messages.reloaded("tollgate", description));
        x.put(Messages.RELOAD_REFUSED, Messages.reloadRefused("tollgate", refusal(Map.of("TOLLGATE_POLICY_DEFAULT_LIMITS",
                "10/fortnight")).getMessage()));
        x.put(Messages.PER_NODE, Messages.perNode("tollgate"));
        x.put(Messages.NAMESPACE_SHARED, Messages.namespaceShared("/shop tollgate", "/shop", "default"));
        java.net.ConnectException refused = new java.net.ConnectException("Connection refused");
        x.put(Messages.REDIS_NOT_READY, Messages.redisNotReady(target, refused));
        x.put(Messages.REDIS_DOWN, Messages.redisDown(target, 3, refused, 1000));
        x.put(Messages.REDIS_UP, Messages.redisUp(target, 8412));
        x.put(Messages.REDIS_TOO_OLD, tooOld(target));
        x.put(Messages.REDIS_BUSY, Messages.redisBusy(target, 212, 16, 100));
        x.put(Messages.SHADOW_DENIED, Messages.denied(true, "api", "header.x-api-key#5f0c2a9e41d7", 60, "redis"));
        x.put(Messages.DENIED, Messages.denied(false, "api", "header.x-api-key#5f0c2a9e41d7", 60, "redis"));
        x.put(Messages.CLIENT_RESET, Messages.clientReset("api", "ip#c0a297a02f4a", 1, 2, "cli:alice"));
        x.put(Messages.INTERNAL_ERROR, Messages.internalError("unexpected error in TollgateFilter; the request goes"
                + " through"));
        return x;
    }

    private static String tooOld(String target) {
        try {
            RedisVersion.require("5.0.14", target);
        } catch (RedisVersion.TooOldException e) {
            return e.getMessage();
        }
        throw new IllegalStateException("Redis 5.0.14 is not refused");
    }

    /**
     * Environment variables as Tollgate reads them, without this JVM's system properties (the
     * command's own property would show up as an unknown key).
     */
    private static ConfigSource environment(Map<String, String> variables) {
        return new ConfigSource() {
            @Override
            public String get(String key) {
                return variables.get(Settings.environmentName(key));
            }

            @Override
            public String describe(String key) {
                return "environment variable " + Settings.environmentName(key);
            }

            @Override
            public Set<String> names() {
                return variables.keySet();
            }
        };
    }

    private static TollgateConfig load(Map<String, String> variables) {
        return TollgateConfig.load(ConfigLookup.of(environment(variables)), null);
    }

    private static ConfigException refusal(Map<String, String> variables) {
        try {
            load(variables);
        } catch (ConfigException e) {
            return e;
        }
        throw new IllegalStateException("the example configuration " + variables + " is not refused");
    }

    private static String problem(Map<String, String> variables) {
        List<String> problems = refusal(variables).problems();
        if (problems.size() != 1) {
            throw new IllegalStateException("the example configuration " + variables + " has not one problem: " + problems);
        }
        return problems.get(0);
    }

    private static String warning(Map<String, String> variables) {
        List<String> warnings = load(variables).warnings();
        if (warnings.size() != 1) {
            throw new IllegalStateException("the example configuration " + variables + " has not one warning: " + warnings);
        }
        return warnings.get(0);
    }

    /** An id in a catalog text, as Markdown writes it: {@code `TOLLGATE-013`}. */
    private static final Pattern ID = Pattern.compile("`(TOLLGATE-0[0-9]{2})`");

    /** {@code text} with each id but {@code own} linked to its section of the messages page, {@code page}. */
    private static String linked(String text, String own, String page) {
        return ID.matcher(text).replaceAll(m -> m.group(1).equals(own) ? m.group()
                : Matcher.quoteReplacement("[" + m.group() + "](" + page + "#" + anchor(m.group(1)) + ")"));
    }

    /** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as {@code -}. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }

    private static String firstSentence(String text) {
        int end = text.indexOf(". ");
        return end < 0 ? text : text.substring(0, end + 1);
    }

    /** A literal quoted as a message quotes it: {@code 'x'}, not an apostrophe inside a word. */
    private static final Pattern QUOTED = Pattern.compile("(?<![A-Za-z0-9])'([^']+)'(?![A-Za-z0-9])");

    /**
     * What a message says is accepted, as Markdown in a table cell: quoted literals become code,
     * and what Markdown would read as markup ({@code <unit>}, {@code X-RateLimit-*}, {@code |}) is
     * escaped.
     */
    static String markdown(String accepted) {
        StringBuilder sb = new StringBuilder();
        Matcher m = QUOTED.matcher(accepted);
        int at = 0;
        while (m.find()) {
            sb.append(escape(accepted.substring(at, m.start())));
            sb.append('`').append(m.group(1).replace("|", "\\|")).append('`');
            at = m.end();
        }
        return sb.append(escape(accepted.substring(at))).toString();
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("*", "\\*").replace("`", "\\`").replace("|", "\\|")
                .replace("<", "&lt;").replace(">", "&gt;").replace("[", "\\[").replace("]", "\\]");
    }
}
