package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Reading {@code redis_version} out of {@code INFO server}, and comparing versions, against a
 * reference model: a version is its list of numbers, compared from the left, a missing number 0.
 */
class RedisVersionTest {

    /** The reference order of two versions given as their numbers. */
    static int compare(List<Integer> a, List<Integer> b) {
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            int x = i < a.size() ? a.get(i) : 0;
            int y = i < b.size() ? b.get(i) : 0;
            if (x != y) {
                return Integer.compare(x, y);
            }
        }
        return 0;
    }

    static String text(List<Integer> numbers) {
        List<String> parts = new ArrayList<>();
        numbers.forEach(n -> parts.add(Integer.toString(n)));
        return String.join(".", parts);
    }

    @Provide
    Arbitrary<List<Integer>> versions() {
        return Arbitraries.integers().between(0, 12).list().ofMinSize(1).ofMaxSize(4);
    }

    @Provide
    Arbitrary<String> labels() {
        return Arbitraries.of("", "", "-rc1", "-beta", "+build.7");
    }

    /** Other fields of a real INFO server reply, some of which end in "version". */
    static final List<String> OTHER_LINES = List.of("# Server", "redis_git_sha1:00000000", "redis_git_dirty:0",
            "redis_build_id:ae4d7c971a948f0", "redis_mode:standalone", "os:Linux 6.1.0 x86_64", "gcc_version:12.2.0",
            "valkey_version:8.0.1", "server_name:valkey", "process_id:1", "tcp_port:6379", "");

    @Property(tries = 300)
    void theVersionIsReadFromInfoWhereverItsLineIs(@ForAll("versions") List<Integer> v, @ForAll("labels") String label,
                                                  @ForAll @IntRange(min = 0, max = 11) int at,
                                                  @ForAll boolean crlf) {
        List<String> lines = new ArrayList<>(OTHER_LINES);
        lines.add(at, "redis_version:" + text(v) + label);
        String info = String.join(crlf ? "\r\n" : "\n", lines);
        assertEquals(text(v) + label, RedisVersion.fromInfo(info));
    }

    @Property(tries = 500)
    void aVersionIsAtLeastAnotherExactlyWhenTheModelSaysSo(@ForAll("versions") List<Integer> v,
                                                          @ForAll("versions") List<Integer> minimum,
                                                          @ForAll("labels") String label) {
        assertEquals(compare(v, minimum) >= 0, RedisVersion.atLeast(text(v) + label, text(minimum)),
                text(v) + label + " vs " + text(minimum));
    }

    @Property(tries = 300)
    void requireRefusesExactlyTheVersionsBelowTheMinimumNamingVersionAndMinimum(@ForAll("versions") List<Integer> v) {
        String version = text(v);
        if (compare(v, List.of(6, 0, 0)) >= 0) {
            assertDoesNotThrow(() -> RedisVersion.require(version, "redis://h:1"));
        } else {
            RedisVersion.TooOldException e = assertThrows(RedisVersion.TooOldException.class,
                    () -> RedisVersion.require(version, "redis://h:1"));
            assertTrue(e.getMessage().startsWith("TOLLGATE-023: redis://h:1 runs Redis " + version + "; Tollgate needs 6.0.0"
                    + " or later"), e.getMessage());
            assertEquals(version, e.found());
        }
    }

    @Test
    void aReplyWithoutAVersionIsNotRefusedOnAGuess() {
        assertNull(RedisVersion.fromInfo("# Server\r\nredis_mode:standalone\r\n"));
        assertNull(RedisVersion.fromInfo(null));
        assertDoesNotThrow(() -> RedisVersion.require(null, "x"));
        assertFalse(RedisVersion.atLeast("unstable", RedisVersion.MINIMUM), "no leading number: not at least anything");
        assertThrows(RedisVersion.TooOldException.class, () -> RedisVersion.require("garbage\u001b[2J", "x"));
    }
}
