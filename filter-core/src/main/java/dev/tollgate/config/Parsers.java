package dev.tollgate.config;

import dev.tollgate.AddressRanges;
import dev.tollgate.config.text.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The parsers settings share. Each throws {@link IllegalArgumentException} whose message says
 * why, in words a refusal can quote after "is not valid: ". Stateless and thread-safe.
 */
final class Parsers {

    private Parsers() {
    }

    static final String BOOLEAN = "'true' or 'false'";
    static final String NODES = "'host:port' entries separated by ',', e.g. '10.0.0.1:7000, 10.0.0.2:7001'";
    static final String OPAQUE = "up to 512 characters, no control characters";
    static final String MARKER = "a role name or header value: up to 128 characters, no control characters";
    static final String HEALTH_PATH = "a path starting with '/', up to 200 characters of letters, digits and"
            + " '-._~/', without '//' or a '/' at the end, e.g. '/health/tollgate'";

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:/-]{0,64}");

    static boolean bool(String v) {
        switch (v.toLowerCase(Locale.ROOT)) {
            case "true": case "yes": case "on":
                return true;
            case "false": case "no": case "off":
                return false;
            default:
                throw new IllegalArgumentException("it is not a boolean");
        }
    }

    /** An enum constant by its word: {@code sliding-log} is {@code SLIDING_LOG}. */
    static <E extends Enum<E>> Function<String, E> word(Class<E> type) {
        return v -> Enum.valueOf(type, v.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    static Function<String, Integer> intIn(int min, int max) {
        return v -> intIn(v, min, max);
    }

    static int intIn(String v, int min, int max) {
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("it is not a whole number");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("it is outside " + min + ".." + max);
        }
        return (int) n;
    }

    static Function<String, Duration> durationIn(Duration min, Duration max) {
        return v -> durationIn(v, min, max);
    }

    static Duration durationIn(String v, Duration min, Duration max) {
        Duration d = Durations.parse(v);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException("it is outside " + Durations.format(min) + ".." + Durations.format(max));
        }
        return d;
    }

    /** Names separated by commas, each checked, none twice. */
    static List<String> names(String text, Pattern valid, String what) {
        Set<String> out = new LinkedHashSet<>();
        for (String n : text.split(",")) {
            String name = n.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!valid.matcher(name).matches()) {
                throw new IllegalArgumentException("'" + name + "' is not a " + what + " name");
            }
            if (!out.add(name)) {
                throw new IllegalArgumentException("'" + name + "' is declared twice");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no " + what + " name");
        }
        return List.copyOf(out);
    }

    static String keyPrefix(String v) {
        if (!PREFIX.matcher(v).matches()) {
            throw new IllegalArgumentException("it has characters outside the accepted set or is too long");
        }
        return v;
    }

    static String metrics(String v) {
        String low = v.toLowerCase(Locale.ROOT).replace(" ", "");
        if (!low.matches("auto|none|(opentelemetry|micrometer|microprofile)(,(opentelemetry|micrometer|microprofile)){0,2}")) {
            throw new IllegalArgumentException("it names no known metrics library");
        }
        return low;
    }

    static Duration reloadInterval(String v) {
        Duration d = Durations.parse(v);
        return d.isZero() ? d : durationIn(v, Duration.ofSeconds(1), Duration.ofHours(1));
    }

    /** Whether keys are compact. */
    static boolean clearClientKeys(String v) {
        switch (v.toLowerCase(Locale.ROOT)) {
            case "masked":
                return false;
            case "clear":
                return true;
            default:
                throw new IllegalArgumentException("it is not a way to show client keys");
        }
    }

    static boolean compactKeys(String v) {
        switch (v.toLowerCase(Locale.ROOT)) {
            case "readable":
                return false;
            case "compact":
                return true;
            default:
                throw new IllegalArgumentException("it is not a key format");
        }
    }

    /** A user name, password or master name: anything a person can type. */
    static String opaque(String v) {
        return printableUpTo(v, 512);
    }

    /** The path of the health endpoint: plain, so it is compared as the container decodes a request's. */
    static String healthPath(String v) {
        String p = v.trim();
        if (!p.startsWith("/") || p.length() < 2 || p.length() > 200 || p.endsWith("/") || p.contains("//")) {
            throw new IllegalArgumentException("it is not a path of the form accepted");
        }
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-._~/".indexOf(c) >= 0)) {
                throw new IllegalArgumentException("it has the character '" + c + "'");
            }
        }
        for (String segment : p.substring(1).split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("it has a dot segment");
            }
        }
        return p;
    }

    /** A role or header value a plan is chosen by: something a role or a header can be. */
    static String marker(String v) {
        return printableUpTo(v, 128);
    }

    private static String printableUpTo(String v, int max) {
        if (v.length() > max) {
            throw new IllegalArgumentException("it is longer than " + max + " characters");
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException("it has a control character");
            }
        }
        return v;
    }

    /** Addresses for trusted proxies: at least one, and never everyone. */
    static AddressRanges someAddresses(String text) {
        AddressRanges r = AddressRanges.parse(text);
        if (r.isEmpty()) {
            throw new IllegalArgumentException("it lists no address");
        }
        if (r.coversAll()) {
            throw new IllegalArgumentException("a range of prefix length 0 covers every address");
        }
        return r;
    }

    /** {@code host:port} entries; hosts may be names, IPv4 or bracketed IPv6. */
    static List<String> nodes(String text) {
        List<String> out = new ArrayList<>();
        for (String raw : text.split(",")) {
            String n = raw.trim();
            if (n.isEmpty()) {
                continue;
            }
            int colon = n.lastIndexOf(':');
            if (colon <= 0 || colon == n.length() - 1) {
                throw new IllegalArgumentException("'" + n + "' is not host:port");
            }
            String host = n.substring(0, colon);
            if (host.startsWith("[") != host.endsWith("]") || !host.matches("[A-Za-z0-9.\\-\\[\\]:]+")) {
                throw new IllegalArgumentException("'" + host + "' is not a host name or address");
            }
            int port;
            try {
                port = Integer.parseInt(n.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + n + "': the port is not a number");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("'" + n + "': the port must be from 1 to 65535");
            }
            out.add(n);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no node given");
        }
        return List.copyOf(out);
    }
}
