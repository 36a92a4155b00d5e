package dev.tollgate;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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

    static Gen<List<Entry>> entries() {
        Gen<String> name = of(NAMES);
        Gen<Entry> principal = name.map(Principal::new);
        Gen<Entry> role = name.map(Role::new);
        Gen<Entry> range = ints(0, 0xFFFF).zip(ints(16, 32), (low, prefix) -> new Range(0x0A00_0000 | low, prefix));
        return lists(Generate.oneOf(principal, role, range), 1, 5);
    }

    /** A client: an address of 10.0.0.0/16, a principal 70% of the time, and a set of up to 3 roles. */
    static Gen<Client> clients() {
        Gen<String> principal = frequency(weight(3, just((String) null)), weight(7, of(NAMES)));
        Gen<Set<String>> roles = lists(of(NAMES), 0, 3).map(l -> (Set<String>) new LinkedHashSet<>(l));
        return ints(0, 0xFFFF).map(low -> 0x0A00_0000 | low).zip(principal, roles, Client::new);
    }

    static TollgateConfig load(String allowList) {
        return TestConfigs.of(
                "tollgate.allow-list", allowList,
                "tollgate.policy.default.limits", "1/h burst 1",
                "tollgate.metrics", "none");
    }

    @Test
    void anyListLoadsAndLetsThroughExactlyTheClientsItLists() {
        qt(300).forAll(entries(), clients()).checkAssert(this::anyListLoadsAndLetsThroughExactlyTheClientsItLists);
    }

    private void anyListLoadsAndLetsThroughExactlyTheClientsItLists(List<Entry> entries, Client client) {
        List<String> texts = new ArrayList<>();
        entries.forEach(e -> texts.add(e.text()));
        TollgateConfig config = load(String.join(", ", texts));
        boolean listed = entries.stream().anyMatch(e -> e.lists(client));
        RateLimiter rl = new RateLimiter(config, new LocalStore(10_000, () -> 0), null, System::nanoTime);
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
