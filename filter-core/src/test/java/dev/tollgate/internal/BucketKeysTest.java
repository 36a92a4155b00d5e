package dev.tollgate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
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
}
