package dev.tollgate.config.text;

import dev.tollgate.RequestView;
import dev.tollgate.spi.KeyResolver;
import dev.tollgate.spi.KeyResolverProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * The {@code key} syntax and the built-in resolvers.
 *
 * <p>{@code key} is one or more alternatives separated by {@code ,}; the first alternative whose
 * every part is present names the client. An alternative is parts joined by {@code +}, e.g.
 * {@code principal+route}. A part is a resolver name with an optional argument:
 * {@code ip}, {@code header:X-Api-Key}, {@code principal}, {@code route}, or the name of a
 * {@link KeyResolverProvider} on the class path. Each part's value is labelled with its name
 * ({@code ip=203.0.113.7}), so values from different sources never share a bucket.
 */
public final class KeyResolvers {

    private static final Logger LOG = Logger.getLogger("dev.tollgate.config");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}");
    private static final Pattern PROVIDER_NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

    private KeyResolvers() {
    }

    /**
     * The resolvers that Tollgate ships plus those found by {@link ServiceLoader} in
     * {@code classLoader} ({@code null}: the built-in ones only).
     *
     * @throws IllegalArgumentException when two providers share a name, or a name is not valid
     */
    public static Map<String, KeyResolverProvider> providers(ClassLoader classLoader) {
        Map<String, KeyResolverProvider> all = new LinkedHashMap<>();
        for (KeyResolverProvider p : List.of(
                provider("ip", arg -> noArgument("ip", arg, KeyResolvers::ip)),
                provider("principal", arg -> principalBased(noArgument("principal", arg, RequestView::principal))),
                provider("route", arg -> noArgument("route", arg, RequestView::route)),
                provider("header", KeyResolvers::header))) {
            all.put(p.name(), p);
        }
        if (classLoader == null) {
            return all;
        }
        Iterator<KeyResolverProvider> found = ServiceLoader.load(KeyResolverProvider.class, classLoader).iterator();
        while (true) {
            KeyResolverProvider p;
            try {
                if (!found.hasNext()) {
                    break;
                }
                p = found.next();
            } catch (ServiceConfigurationError e) {
                // A provider on the class path that cannot be loaded: usable only if configured, so
                // it is reported here and, if a policy names it, as an unknown resolver there.
                LOG.warning(() -> ConfigMessages.bad("a key resolver listed in META-INF/services cannot be loaded"
                        + " and is ignored: " + e.getMessage()));
                continue;
            }
            String name = p.name();
            if (name == null || !PROVIDER_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("key resolver " + p.getClass().getName() + " has the name '"
                        + name + "'; a name is lower-case letters, digits and '-'");
            }
            KeyResolverProvider earlier = all.putIfAbsent(name, p);
            if (earlier != null && earlier != p) {
                throw new IllegalArgumentException("two key resolvers are named '" + name + "': "
                        + earlier.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return all;
    }

    /**
     * Parses a {@code key} value.
     *
     * @throws IllegalArgumentException naming what is wrong and what is accepted
     */
    public static KeyResolver parse(String text, Map<String, KeyResolverProvider> providers) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no key given");
        }
        List<Part[]> alternatives = new ArrayList<>();
        for (String alt : text.split(",")) {
            String a = alt.trim();
            if (a.isEmpty()) {
                throw new IllegalArgumentException("an empty alternative");
            }
            List<Part> parts = new ArrayList<>();
            for (String raw : a.split("\\+")) {
                String p = raw.trim();
                int colon = p.indexOf(':');
                String name = (colon < 0 ? p : p.substring(0, colon)).trim().toLowerCase(Locale.ROOT);
                String arg = colon < 0 ? null : p.substring(colon + 1).trim();
                KeyResolverProvider provider = providers.get(name);
                if (provider == null) {
                    throw new IllegalArgumentException("unknown key resolver '" + name + "'; known: "
                            + String.join(", ", providers.keySet()) + "");
                }
                KeyResolver resolver = provider.create(arg);
                String label = arg == null ? name : name + "." + arg.toLowerCase(Locale.ROOT);
                parts.add(new Part(label, resolver));
            }
            alternatives.add(parts.toArray(new Part[0]));
        }
        return new Expression(List.copyOf(alternatives), text.trim());
    }

    /**
     * Whether a key parsed by {@link #parse} names the client by its address alone ({@code ip},
     * in every part of every alternative): then two requests from one address have one key.
     */
    public static boolean readsAddressOnly(KeyResolver key) {
        if (!(key instanceof Expression e)) {
            return false;
        }
        for (Part[] parts : e.alternatives()) {
            for (Part p : parts) {
                if (!p.label().equals("ip")) { // "ip" is always the built-in: a provider may not take its name
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The one header a key parsed by {@link #parse} reads besides the address: when every part of
     * every alternative is {@code ip} or the built-in {@code header} resolver, all of the same
     * header name (as written), that name; else {@code null} (also for a key of {@code ip} alone).
     * Then two requests from one address with one value of that header have one key.
     */
    public static String readsAddressAndHeader(KeyResolver key) {
        if (!(key instanceof Expression e)) {
            return null;
        }
        String header = null;
        for (Part[] parts : e.alternatives()) {
            for (Part p : parts) {
                if (p.resolver() instanceof HeaderKey h) {
                    if (header != null && !header.equals(h.name())) {
                        return null;
                    }
                    header = h.name();
                } else if (!p.label().equals("ip")) {
                    return null;
                }
            }
        }
        return header;
    }

    /** The client address, without brackets, lower case. */
    static String ip(RequestView request) {
        String a = request.clientAddress();
        if (a == null || a.isEmpty()) {
            return null;
        }
        if (a.startsWith("[") && a.endsWith("]")) {
            a = a.substring(1, a.length() - 1);
        }
        return a.toLowerCase(Locale.ROOT);
    }

    private static KeyResolver header(String name) {
        if (name == null || !HEADER_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'header' needs a header name, e.g. 'header:X-Api-Key'; got '"
                    + (name == null ? "" : name) + "'");
        }
        return new HeaderKey(name);
    }

    /** The built-in {@code header:<name>} resolver: the header's first value, trimmed; none when empty. */
    private record HeaderKey(String name) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            String v = request.header(name);
            if (v == null) {
                return null;
            }
            v = v.trim();
            return v.isEmpty() ? null : v;
        }
    }

    private static KeyResolver noArgument(String name, String arg, KeyResolver resolver) {
        if (arg != null) {
            throw new IllegalArgumentException("'" + name + "' takes no argument; got '" + name + ":" + arg + "'");
        }
        return request -> {
            String v = resolver.resolve(request);
            return v == null || v.isEmpty() ? null : v;
        };
    }

    private static KeyResolver principalBased(KeyResolver resolver) {
        return new KeyResolver() {
            @Override
            public String resolve(RequestView request) {
                return resolver.resolve(request);
            }

            @Override
            public boolean usesPrincipal() {
                return true;
            }
        };
    }

    private static KeyResolverProvider provider(String name, java.util.function.Function<String, KeyResolver> make) {
        return new KeyResolverProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public KeyResolver create(String argument) {
                return make.apply(argument);
            }
        };
    }

    private record Part(String label, KeyResolver resolver) {
    }

    /** Alternatives of labelled parts; {@code null} when no alternative is complete. */
    private record Expression(List<Part[]> alternatives, String text) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            for (int i = 0; i < alternatives.size(); i++) { // by index: no iterator per request
                String key = join(alternatives.get(i), request);
                if (key != null) {
                    return key;
                }
            }
            return null;
        }

        private static String join(Part[] parts, RequestView request) {
            if (parts.length == 1) {
                String v = parts[0].resolver.resolve(request);
                return v == null ? null : parts[0].label + "=" + escape(v);
            }
            StringBuilder sb = new StringBuilder();
            for (Part p : parts) {
                String v = p.resolver.resolve(request);
                if (v == null) {
                    return null;
                }
                if (sb.length() > 0) {
                    sb.append('+');
                }
                sb.append(p.label).append('=').append(escape(v));
            }
            return sb.toString();
        }

        /**
         * A value with '%', '+' and '=' escaped, so that the joined key can be read back one way
         * only: principal {@code a+route=b} with route {@code c} is not principal {@code a} with
         * route {@code b+route=c}.
         */
        private static String escape(String v) {
            if (v.indexOf('%') < 0 && v.indexOf('+') < 0 && v.indexOf('=') < 0) {
                return v;
            }
            return v.replace("%", "%25").replace("+", "%2B").replace("=", "%3D");
        }

        @Override
        public boolean usesPrincipal() {
            for (Part[] parts : alternatives) {
                for (Part p : parts) {
                    if (p.resolver.usesPrincipal()) {
                        return true;
                    }
                }
            }
            return false;
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
