package dev.tollgate.internal.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.Policy;
import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class BucketKeysTest {

    @Test
    void plainClientsStayReadable() {
        assertEquals("ip=203.0.113.7", BucketKeys.client("ip=203.0.113.7"));
        assertEquals("ip=2001:db8::1", BucketKeys.client("ip=2001:db8::1"));
        assertEquals("tollgate:{ip=203.0.113.7}:default", BucketKeys.key("tollgate:", "default", "ip=203.0.113.7"));
    }

    @Test
    void bracesAndOtherUnsafeCharactersAreEncodedSoTheHashTagHolds() {
        String c = BucketKeys.client("header.x-api-key=a}b{c d%");
        assertEquals("header.x-api-key=a%7Db%7Bc%20d%25", c);
        assertFalse(c.contains("{") || c.contains("}"));
        assertEquals("principal=J%C3%BCrgen", BucketKeys.client("principal=Jürgen"));
        assertEquals("x=%0D%0Aevil", BucketKeys.client("x=\r\nevil"));
    }

    @Test
    void encodingNeverMakesTwoClientsOne() {
        assertNotEquals(BucketKeys.client("a%7D"), BucketKeys.client("a}"));
        assertNotEquals(BucketKeys.client("x".repeat(121)), BucketKeys.client("x".repeat(122)));
    }

    @Test
    void longClientsAreHashedToAFixedLength() {
        String huge = "header.x-api-key=" + "k".repeat(100_000);
        String c = BucketKeys.client(huge);
        assertTrue(c.startsWith("#"));
        assertEquals(23, c.length());
        assertEquals(c, BucketKeys.client(huge), "the same client always gets the same key");
        String almost = "é".repeat(50); // 50 chars, 300 once encoded
        assertEquals(23, BucketKeys.client(almost).length());
    }

    @Test
    void everyKeyIsBounded() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String raw = "x".repeat(i % 300) + "{}\u0000" + i;
            String c = BucketKeys.client(raw);
            assertTrue(c.length() <= BucketKeys.MAX_CLIENT, c);
            assertFalse(c.contains("{") || c.contains("}"));
            assertTrue(seen.add(c), "no collision");
        }
    }

    @Test
    void loneSurrogatesAreEncodedApartFromEveryCharacter() {
        String a = BucketKeys.client("a?b");
        String b = BucketKeys.client("a\uD800b");
        String c = BucketKeys.client("a\uDFFFb");
        assertEquals("a%3Fb", a);
        assertEquals("a%uD800b", b);
        assertEquals("a%uDFFFb", c);
        assertEquals("%F0%9F%9A%A6", BucketKeys.client("\uD83D\uDEA6"), "a pair is one character, in UTF-8");
    }

    @Test
    void compactKeysAreShortStableAndKeepTheHashTagInACluster() {
        String k = BucketKeys.compactKey("t", "default", "ip=203.0.113.7", false);
        assertEquals(13, k.length(), k);
        assertEquals(k, BucketKeys.compactKey("t", "default", "ip=203.0.113.7", false), "the same client, the same key");
        assertNotEquals(k, BucketKeys.compactKey("t", "default", "ip=203.0.113.8", false));
        assertNotEquals(k, BucketKeys.compactKey("t", "login", "ip=203.0.113.7", false));
        String c = BucketKeys.compactKey("t", "default", "ip=203.0.113.7", true);
        assertEquals("t{" + k.substring(1, 11) + "}" + k.substring(11), c, "braces around the client in a Cluster");
        assertFalse(k.substring(1).contains("{") || k.contains("}"));
    }

    @Test
    void aTokenBucketKeepsTheKeyOfEarlierVersionsAndASlidingLogHasItsOwn() {
        assertEquals("tollgate:{ip=203.0.113.7}:api", BucketKeys.key("tollgate:", "api", "ip=203.0.113.7", Algorithm.TOKEN_BUCKET),
                "unchanged, so buckets survive an upgrade");
        assertEquals("tollgate:{ip=203.0.113.7}:api:log", BucketKeys.key("tollgate:", "api", "ip=203.0.113.7", Algorithm.SLIDING_LOG));
        String compact = BucketKeys.compactKey("t", "api", "ip=203.0.113.7", false);
        assertEquals(compact, BucketKeys.compactKey("t", "api", "ip=203.0.113.7", false, Algorithm.TOKEN_BUCKET));
        assertEquals(compact + ":log", BucketKeys.compactKey("t", "api", "ip=203.0.113.7", false, Algorithm.SLIDING_LOG));
    }

    /**
     * Issue 10, finding 4, made impossible by construction: a sliding log's key (a sorted set) is
     * never the key of a token bucket (a string), whatever the policy names (as the configuration
     * admits them, no ':') and clients; and the readable format never gives two buckets one key.
     */
    @Property(tries = 300)
    void keysOfTheTwoAlgorithmsNeverMeet(@ForAll("policies") String policy, @ForAll("policies") String otherPolicy,
                                         @ForAll String rawClient, @ForAll String otherRawClient, @ForAll boolean cluster) {
        String client = BucketKeys.client(rawClient);
        String other = BucketKeys.client(otherRawClient);
        String log = BucketKeys.key("tollgate:", policy, client, Algorithm.SLIDING_LOG);
        String bucket = BucketKeys.key("tollgate:", otherPolicy, other, Algorithm.TOKEN_BUCKET);
        assertNotEquals(log, bucket);
        assertNotEquals(BucketKeys.compactKey("t:", policy, client, cluster, Algorithm.SLIDING_LOG),
                BucketKeys.compactKey("t:", otherPolicy, other, cluster, Algorithm.TOKEN_BUCKET));
        boolean same = policy.equals(otherPolicy) && client.equals(other);
        assertEquals(same, BucketKeys.key("tollgate:", policy, client, Algorithm.SLIDING_LOG)
                .equals(BucketKeys.key("tollgate:", otherPolicy, other, Algorithm.SLIDING_LOG)));
        assertEquals(same, bucket.equals(BucketKeys.key("tollgate:", policy, client, Algorithm.TOKEN_BUCKET)));
    }

    @Provide
    Arbitrary<String> policies() {
        Arbitrary<String> names = Arbitraries.strings().withChars("abcXYZ019_.-").ofMinLength(0).ofMaxLength(8)
                .flatMap(tail -> Arbitraries.of("a", "Z", "0", "log", "l").map(head -> head + tail));
        return names.filter(n -> Policy.NAME.matcher(n).matches());
    }
}
