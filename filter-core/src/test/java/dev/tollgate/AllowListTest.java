package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@code tollgate.allow-list}: any mix of addresses, ranges, principals and roles (principals or
 * roles alone included) loads, and a request is let through unlimited exactly when the reference
 * model below says its client is listed.
 */
class AllowListTest {

    /** One entry of the list, with the reference meaning of "this client is listed by it". */
    sealed interface Entry permits Principal, Role, Range {
        String text();

        boolean lists(Client c);
    }

    record Principal(String name) implements Entry {
        public String text() {
            return "principal:" + name;
        }

        public boolean lists(Client c) {
            return name.equals(c.principal());
        }
    }

    record Role(String name) implements Entry {
        public String text() {
            return "role:" + name;
        }

        public boolean lists(Client c) {
            return c.principal() != null && c.roles().contains(name);
        }
    }

    /** An IPv4 range {@code 10.0.x.y/prefix}; prefix 0 is refused (it would list everyone). */
    record Range(int address, int prefix) implements Entry {
        public String text() {
            return dotted(address) + (prefix == 32 ? "" : "/" + prefix);
        }

        public boolean lists(Client c) {
            int mask = (int) (0xFFFF_FFFFL << (32 - prefix));
            return (address & mask) == (c.address() & mask);
        }
    }

    record Client(int address, String principal, Set<String> roles) {
        TestRequest request() {
            TestRequest r = TestRequest.get("/api").from(dotted(address));
            return principal == null ? r : r.user(principal, roles.toArray(new String[0]));
        }
    }

    static String dotted(int a) {
        return (a >>> 24) + "." + (a >>> 16 & 255) + "." + (a >>> 8 & 255) + "." + (a & 255);
    }

    /** Few names and a small address space, so that generated clients are often listed. */
    static final List<String> NAMES = List.of("alice", "bob", "ops", "svc.monitor", "admin@corp", "x-y_z");

    @Provide
    Arbitrary<List<Entry>> entries() {
        Arbitrary<String> name = Arbitraries.of(NAMES);
        Arbitrary<Entry> principal = name.map(Principal::new);
        Arbitrary<Entry> role = name.map(Role::new);
        Arbitrary<Entry> range = Combinators.combine(Arbitraries.integers().between(0, 0xFFFF),
                Arbitraries.integers().between(16, 32)).as((low, prefix) -> new Range(0x0A00_0000 | low, prefix));
        return Arbitraries.oneOf(principal, role, range).list().ofMinSize(1).ofMaxSize(5);
    }

    @Provide
    Arbitrary<Client> clients() {
        return Combinators.combine(Arbitraries.integers().between(0, 0xFFFF).map(low -> 0x0A00_0000 | low),
                Arbitraries.of(NAMES).injectNull(0.3), Arbitraries.of(NAMES).set().ofMaxSize(3)).as(Client::new);
    }

    static TollgateConfig load(String allowList) {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test", Map.of(
                "tollgate.allow-list", allowList,
                "tollgate.policy.default.limits", "1/h burst 1",
                "tollgate.metrics", "none"))), null);
    }

    @Property(tries = 300)
    void anyListLoadsAndLetsThroughExactlyTheClientsItLists(@ForAll("entries") List<Entry> entries,
                                                            @ForAll("clients") Client client) {
        List<String> texts = new ArrayList<>();
        entries.forEach(e -> texts.add(e.text()));
        TollgateConfig config = load(String.join(", ", texts));
        boolean listed = entries.stream().anyMatch(e -> e.lists(client));
        RateLimiter rl = new RateLimiter(config, new LocalStore(10_000, () -> 0), null);
        for (int i = 0; i < 2; i++) { // the burst is 1: a second request is refused unless listed
            Decision d = rl.check(client.request());
            assertEquals(listed, d.results().isEmpty(), "listed by the model: " + listed + ", decision " + d);
            assertEquals(listed || i == 0, d.allowed(), "request " + (i + 1) + ": " + d);
        }
    }

    @Test
    void aListThatNamesNobodyOrEveryAddressIsRefused() {
        for (String bad : List.of(" , ,", "principal:", "role: ", "0.0.0.0/0", "principal:a, ::/0", "10.0.0.0/33")) {
            ConfigException e = assertThrows(ConfigException.class, () -> load(bad), bad);
            assertTrue(e.getMessage().contains("TOLLGATE-001: tollgate.allow-list = '" + bad.trim() + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("Accepted: entries separated by ','"), e.getMessage());
        }
    }
}
