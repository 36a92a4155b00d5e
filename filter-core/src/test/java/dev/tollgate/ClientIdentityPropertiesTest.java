package dev.tollgate;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.bytes;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.address.IpAddresses;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Identity: no client-written bytes choose the client key.
 *
 * <p>A request reaches us through 1 to 32 trusted proxies. The client writes whatever it likes
 * into the forwarding headers first (any characters, unbalanced quotes, backslashes, separators,
 * obfuscated and {@code unknown} values, addresses of every form, several field lines, more than
 * 8192 characters and more than 32 hops); then each proxy appends the address of its own peer,
 * either to the last field line ({@code , for=...}) or as a new field line. The reference model is
 * one line: the client is the address the first (outermost) trusted proxy saw.
 */
class ClientIdentityPropertiesTest {

    static final String TRUSTED = "10.0.0.0/8, fd00::/8";
    /** The addresses an attacker would most like to be: never limited. */
    static final String ALLOWED = "198.51.100.0/24, 2001:db8:a11::/48";

    static ClientAddresses addresses(ClientAddresses.Header header) {
        return new ClientAddresses(AddressRanges.parse(TRUSTED), header, 32, 64);
    }

    // ---- the properties ------------------------------------------------------------------

    @Test
    void behindForwardedTheOutermostTrustedProxyNamesTheClient() {
        qt(1000).forAll(clientLines(), client(), proxies()).checkAssert((clientWrote, client, proxies) ->
                assertTheOutermostTrustedProxyNamesTheClient(ClientAddresses.Header.FORWARDED, clientWrote, client, proxies));
    }

    @Test
    void behindXForwardedForTheOutermostTrustedProxyNamesTheClient() {
        qt(1000).forAll(clientLines(), client(), proxies()).checkAssert((clientWrote, client, proxies) ->
                assertTheOutermostTrustedProxyNamesTheClient(ClientAddresses.Header.X_FORWARDED_FOR, clientWrote, client, proxies));
    }

    private static void assertTheOutermostTrustedProxyNamesTheClient(
            ClientAddresses.Header header, List<String> clientWrote, Address client, List<Hop> proxies) {
        TestRequest request = behindProxies(header, clientWrote, client, proxies);
        ClientAddresses a = addresses(header);
        assertEquals(modelKey(client.bytes()), a.key(a.client(request)), () -> describe(request));
    }

    /**
     * The documented rule for an entry that is not an address: the walk ends there, and the
     * client is the trusted hop that wrote it (for the rightmost such hop).
     */
    @Test
    void aTrustedProxyThatDoesNotNameItsPeerIsTheClient() {
        qt(500).forAll(headers(), clientLines(), client(), proxiesSomeHiding())
                .checkAssert(ClientIdentityPropertiesTest::aTrustedProxyThatDoesNotNameItsPeerIsTheClient);
    }

    private static void aTrustedProxyThatDoesNotNameItsPeerIsTheClient(
            ClientAddresses.Header header, List<String> clientWrote, Address client, List<Hop> proxies) {
        byte[] expected = client.bytes();
        for (Hop hop : proxies) {
            if (hop.hides()) {
                expected = hop.proxy();
            }
        }
        TestRequest request = behindProxies(header, clientWrote, client, proxies);
        ClientAddresses a = addresses(header);
        assertEquals(modelKey(expected), a.key(a.client(request)), () -> describe(request));
    }

    @Test
    void anUntrustedPeerIsThePeerWhateverItSends() {
        qt(500).forAll(headers(), clientLines(), clientLines(), client())
                .checkAssert(ClientIdentityPropertiesTest::anUntrustedPeerIsThePeerWhateverItSends);
    }

    private static void anUntrustedPeerIsThePeerWhateverItSends(
            ClientAddresses.Header header, List<String> xff, List<String> forwarded, Address peer) {
        TestRequest request = TestRequest.get("/").from(IpAddresses.format(peer.bytes()));
        xff.forEach(line -> request.header("X-Forwarded-For", line));
        forwarded.forEach(line -> request.header("Forwarded", line));
        ClientAddresses a = addresses(header);
        assertEquals(modelKey(peer.bytes()), a.key(a.client(request)), () -> describe(request));
    }

    /**
     * Through the engine: the allow-list and the bucket key read the same client, the one the
     * model names; a client cannot name an allow-listed address to go unlimited.
     */
    @Test
    void theAllowListAndTheKeyReadTheSameClient() {
        qt(300).forAll(headers(), clientLines(), client(), proxies())
                .checkAssert(ClientIdentityPropertiesTest::theAllowListAndTheKeyReadTheSameClient);
    }

    private static void theAllowListAndTheKeyReadTheSameClient(
            ClientAddresses.Header header, List<String> clientWrote, Address client, List<Hop> proxies) {
        TestRequest request = behindProxies(header, clientWrote, client, proxies);
        TollgateConfig config = HostileRequests.config(
                "tollgate.trusted-proxies", TRUSTED,
                "tollgate.forwarded-header", header == ClientAddresses.Header.FORWARDED ? "forwarded" : "x-forwarded-for",
                "tollgate.allow-list", ALLOWED,
                "tollgate.policies", "addr",
                "tollgate.policy.addr.limits", "100/s",
                "tollgate.metrics", "none");
        ManualClock clock = new ManualClock();
        try (RateLimiter limiter = new RateLimiter(config, new LocalStore(config.store().localMaxKeys(), clock::nowMicros), null, System::nanoTime)) {
            Decision d = limiter.check(request);
            if (AddressRanges.parse(ALLOWED).contains(client.bytes())) {
                assertTrue(d.results().isEmpty(), () -> "an allow-listed client was limited: " + describe(request));
            } else {
                assertEquals(1, d.results().size(), () -> "limited as one policy: " + describe(request));
                assertEquals(BucketKeys.client("ip=" + modelKey(client.bytes())), d.results().get(0).clientKey(),
                        () -> describe(request));
            }
        }
    }

    // ---- the reference model ----------------------------------------------------------------

    /** The key of an address: IPv4 whole, IPv6 its /64. */
    static String modelKey(byte[] address) {
        return address.length == 4 ? IpAddresses.format(address)
                : IpAddresses.format(IpAddresses.mask(address, 64)) + "/64";
    }

    /**
     * The request as the last proxy hands it to us: the client's lines, then each proxy's
     * element naming its peer (the client for the first), on the last line or a new one.
     */
    static TestRequest behindProxies(ClientAddresses.Header header, List<String> clientWrote, Address client, List<Hop> proxies) {
        List<String> lines = new ArrayList<>(clientWrote);
        byte[] peer = client.bytes();
        for (Hop hop : proxies) {
            String element = header == ClientAddresses.Header.FORWARDED ? hop.forwarded(peer) : hop.xff(peer);
            if (hop.newLine() || lines.isEmpty()) {
                lines.add(element);
            } else {
                lines.set(lines.size() - 1, lines.get(lines.size() - 1) + hop.separator() + element);
            }
            peer = hop.proxy();
        }
        TestRequest request = TestRequest.get("/").from(IpAddresses.format(peer));
        lines.forEach(line -> request.header(header.headerName(), line));
        // The other header is not read: whatever the client put there stays there.
        String other = header == ClientAddresses.Header.FORWARDED ? "X-Forwarded-For" : "Forwarded";
        clientWrote.forEach(line -> request.header(other, line));
        return request;
    }

    // ---- generators ---------------------------------------------------------------------------

    /** An address; printed readably in a counterexample. */
    record Address(byte[] bytes) {
        @Override
        public String toString() {
            return IpAddresses.format(bytes);
        }
    }

    /**
     * One trusted proxy: its own address, and how it writes its peer's: the address form
     * ({@code form}), parameters around {@code for=} ({@code extras}), on the last field line
     * (after {@code separator}) or on a new one.
     */
    record Hop(Address proxyAddress, int form, int extras, boolean newLine, String separator, boolean hides) {

        byte[] proxy() {
            return proxyAddress.bytes();
        }

        String xff(byte[] peer) {
            return hides ? HIDDEN_XFF[form % HIDDEN_XFF.length] : plain(peer, form);
        }

        String forwarded(byte[] peer) {
            if (hides) {
                return HIDDEN_FORWARDED[form % HIDDEN_FORWARDED.length];
            }
            String value = plain(peer, form);
            String node = value.indexOf(':') < 0 && form % 2 == 0 ? value : "\"" + value + "\"";
            String name = switch (extras % 3) {
                case 0 -> "for";
                case 1 -> "For";
                default -> "FOR";
            };
            String pair = name + "=" + node;
            return switch (extras % 7) {
                case 0 -> pair;
                case 1 -> pair + ";proto=https";
                case 2 -> "proto=http;" + pair + ";by=\"[fd00::1]:443\"";
                case 3 -> "host=\"example.com\";" + pair;
                case 4 -> pair + ";by=\"_q\\\"uo,te\"";   // a quoted-pair and a comma inside quotes
                case 5 -> "host=\"a\\\\\";" + pair;    // an escaped backslash before the closing quote
                default -> pair + ";by=_edge;proto=https";
            };
        }

        /** The forms proxies write an address in (ports, brackets, IPv4-mapped, case). */
        static String plain(byte[] a, int form) {
            String text = IpAddresses.format(a);
            if (a.length == 4) {
                return switch (form % 4) {
                    case 0 -> text;
                    case 1 -> text + ":" + (1024 + form);
                    case 2 -> "[::ffff:" + text + "]";
                    default -> "[::ffff:" + text + "]:" + (1024 + form);
                };
            }
            return switch (form % 4) {
                case 0 -> "[" + text + "]";
                case 1 -> "[" + text + "]:" + (1024 + form);
                case 2 -> "[" + full(a).toUpperCase(Locale.ROOT) + "]";
                default -> text;
            };
        }

        private static String full(byte[] a) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 16; i += 2) {
                sb.append(i == 0 ? "" : ":").append(Integer.toHexString(((a[i] & 0xff) << 8) | (a[i + 1] & 0xff)));
            }
            return sb.toString();
        }
    }

    /** What a proxy writes when it does not name its peer. */
    static final String[] HIDDEN_XFF = {"unknown", "_hidden", "not-an-ip"};
    static final String[] HIDDEN_FORWARDED = {"for=unknown", "for=_hidden", "for=\"_gazonk:80\"", "proto=https;by=_edge",
        "for=unknown;proto=https"};

    static Gen<ClientAddresses.Header> headers() {
        return of(ClientAddresses.Header.values());
    }

    /** An untrusted client: IPv4 outside 10/8, global IPv6; often an allow-listed one. */
    static Gen<Address> client() {
        Gen<Address> v4 = bytes(4).assuming(b -> b[0] != 10).map(Address::new);
        Gen<Address> v6 = bytes(16)
                .map(b -> {
                    byte[] a = b.clone();
                    a[0] = (byte) (0x20 | (a[0] & 0x1f)); // 2000::/3, never fd00::/8 nor IPv4-mapped
                    return new Address(a);
                });
        Gen<Address> allowed = of("198.51.100.7", "198.51.100.250", "2001:db8:a11:5::1")
                .map(s -> new Address(IpAddresses.parse(s)));
        return frequency(weight(4, v4), weight(3, v6), weight(2, allowed));
    }

    static Gen<List<Hop>> proxies() {
        return proxies(just(false));
    }

    static Gen<List<Hop>> proxiesSomeHiding() {
        return proxies(frequency(weight(4, just(false)), weight(1, just(true))));
    }

    private static Gen<List<Hop>> proxies(Gen<Boolean> hides) {
        Gen<Address> v4 = ints(0, 0xffffff)
                .map(n -> new Address(new byte[] {10, (byte) (n >> 16), (byte) (n >> 8), (byte) (int) n}));
        Gen<Address> v6 = bytes(16)
                .map(b -> {
                    byte[] a = b.clone();
                    a[0] = (byte) 0xfd;
                    return new Address(a);
                });
        // six parts: five zipped into a hop still waiting for whether it hides, then that
        Gen<Hop> hop = frequency(weight(1, v4), weight(1, v6)).zip(ints(0, 99), ints(0, 20), bools(),
                        of(", ", ",", " , ", ",\t"),
                        (address, form, extras, newLine, separator) -> (Function<Boolean, Hop>)
                                hidden -> new Hop(address, form, extras, newLine, separator, hidden))
                .zip(hides, Function::apply);
        return lists(hop, 1, 32);
    }

    /** What a client writes into the forwarding header: 0 to 4 field lines of anything. */
    static Gen<List<String>> clientLines() {
        Gen<String> fragment = frequency(
                weight(12, of(FRAGMENTS)),
                weight(3, codeUnits(0, 4)),
                weight(1, of(OVERSIZE)));
        Gen<String> line = lists(fragment, 0, 12).map(parts -> String.join("", parts));
        return lists(line, 0, 4);
    }

    /** Any UTF-16 code units, lone surrogates and noncharacters included. */
    static Gen<String> codeUnits(int min, int max) {
        return lists(ints(Character.MIN_VALUE, Character.MAX_VALUE), min, max).map(units -> {
            StringBuilder text = new StringBuilder(units.size());
            units.forEach(u -> text.append((char) (int) u));
            return text.toString();
        });
    }

    static final String[] FRAGMENTS = {
        "\"", "\\", "\\\"", ";", ",", ", ", "=", " ", "\t", "for=", "For=", "for=\"", "for=\"[", "by=", "by=\"", "x=\"",
        "proto=https", "host=", "_hidden", "unknown", "[", "]", ":", "::", "%", "6.6.6.6", "198.51.100.7", "10.9.9.9",
        "10.0.0.1:80", "2001:db8:a11::1", "[2001:db8:a11::1]:443", "\"[2001:db8:a11::1]\"", "[fd00::1]", "::ffff:198.51.100.7",
        "fe80::1%eth0", "1.2.3", "256.1.1.1", "\u0000", "\r\n", "\u00e9",
    };

    /** Beyond 8192 characters and beyond 32 hops, with quotes open or closed. */
    static final String[] OVERSIZE = {
        "for=198.51.100.7, ".repeat(600),
        "198.51.100.7,".repeat(40),
        "for=\"".repeat(2000),
        "\"".repeat(9000),
        "a".repeat(9000),
        "for=10.0.0.1, ".repeat(50),
    };

    static String describe(TestRequest r) {
        return "peer " + r.remoteAddress() + ", X-Forwarded-For " + clip(r.headers("X-Forwarded-For"))
                + ", Forwarded " + clip(r.headers("Forwarded"));
    }

    private static String clip(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String s : lines) {
            out.add(s.length() > 300 ? "..." + s.length() + " chars ending " + s.substring(s.length() - 200) : s);
        }
        return out.toString();
    }
}
