package dev.tollgate.internal.redis;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

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

    static Gen<List<Integer>> versions() {
        return lists(ints(0, 12), 1, 4);
    }

    static Gen<String> labels() {
        return of("", "", "-rc1", "-beta", "+build.7");
    }

    /** Other fields of a real INFO server reply, some of which end in "version". */
    static final List<String> OTHER_LINES = List.of("# Server", "redis_git_sha1:00000000", "redis_git_dirty:0",
            "redis_build_id:ae4d7c971a948f0", "redis_mode:standalone", "os:Linux 6.1.0 x86_64", "gcc_version:12.2.0",
            "valkey_version:8.0.1", "server_name:valkey", "process_id:1", "tcp_port:6379", "");

    @Test
    void theVersionIsReadFromInfoWhereverItsLineIs() {
        qt(300).forAll(versions(), labels(), ints(0, 11), bools()).checkAssert(this::theVersionIsReadFromInfoWhereverItsLineIs);
    }

    private void theVersionIsReadFromInfoWhereverItsLineIs(List<Integer> v, String label, int at, boolean crlf) {
        List<String> lines = new ArrayList<>(OTHER_LINES);
        lines.add(at, "redis_version:" + text(v) + label);
        String info = String.join(crlf ? "\r\n" : "\n", lines);
        assertEquals(text(v) + label, RedisVersion.fromInfo(info));
    }

    @Test
    void aVersionIsAtLeastAnotherExactlyWhenTheModelSaysSo() {
        qt(500).forAll(versions(), versions(), labels()).checkAssert(this::aVersionIsAtLeastAnotherExactlyWhenTheModelSaysSo);
    }

    private void aVersionIsAtLeastAnotherExactlyWhenTheModelSaysSo(List<Integer> v, List<Integer> minimum, String label) {
        assertEquals(compare(v, minimum) >= 0, RedisVersion.atLeast(text(v) + label, text(minimum)),
                text(v) + label + " vs " + text(minimum));
    }

    @Test
    void requireRefusesExactlyTheVersionsBelowTheMinimumNamingVersionAndMinimum() {
        qt(300).forAll(versions()).checkAssert(this::requireRefusesExactlyTheVersionsBelowTheMinimumNamingVersionAndMinimum);
    }

    private void requireRefusesExactlyTheVersionsBelowTheMinimumNamingVersionAndMinimum(List<Integer> v) {
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
