package dev.tollgate.internal.identity;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.strings;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.Policy;
import dev.tollgate.testing.Tally;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

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
    @Test
    void keysOfTheTwoAlgorithmsNeverMeet() {
        Tally tally = new Tally();
        qt(300).forAll(buckets(), bools()).checkAssert((b, cluster) -> {
            tally.count("one bucket twice", b.policy().equals(b.otherPolicy())
                    && BucketKeys.client(b.rawClient()).equals(BucketKeys.client(b.otherRawClient())));
            String client = BucketKeys.client(b.rawClient());
            tally.count("a readable client", client.equals(b.rawClient()));
            tally.count("an encoded client", !client.equals(b.rawClient()) && !client.startsWith("#"));
            tally.count("a hashed client", client.startsWith("#"));
            keysOfTheTwoAlgorithmsNeverMeet(b.policy(), b.otherPolicy(), b.rawClient(), b.otherRawClient(), cluster);
        });
        System.out.println("keysOfTheTwoAlgorithmsNeverMeet: " + tally);
        tally.reached("one bucket twice");
        tally.reached("a readable client");
        tally.reached("an encoded client");
        tally.reached("a hashed client");
    }

    private static void keysOfTheTwoAlgorithmsNeverMeet(String policy, String otherPolicy, String rawClient,
                                                        String otherRawClient, boolean cluster) {
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

    @Test
    void aNamespaceComesBeforeTheClientAndLeavesTheHashTagAlone() {
        assertEquals("tollgate:/shop:{ip=127.0.0.1}:default",
                BucketKeys.key("tollgate:", BucketKeys.namespace("/shop"), "default", "ip=127.0.0.1", Algorithm.TOKEN_BUCKET));
        assertEquals("Servlet%20and%20JSP%20Examples", BucketKeys.namespace("Servlet and JSP Examples"));
        assertEquals("a%7Bb%7D%0A", BucketKeys.namespace("a{b}\n"), "no brace, no line end: the tag and the log stay whole");
        String longName = BucketKeys.namespace("/" + "x".repeat(BucketKeys.MAX_NAMESPACE));
        assertTrue(longName.startsWith("#") && longName.length() == 23, longName);
        assertEquals("tollgate:default:policy:api", BucketKeys.policyRecordKey("tollgate:", "default", "api"));
        String compact = BucketKeys.compactKey("t", "/shop", "api", "ip=203.0.113.7", false, Algorithm.TOKEN_BUCKET);
        assertEquals(13, compact.length(), "a namespace costs a compact key nothing: " + compact);
        assertNotEquals(compact, BucketKeys.compactKey("t", "/examples", "api", "ip=203.0.113.7", false, Algorithm.TOKEN_BUCKET));
    }

    /**
     * Issue 29: two namespaces never share a key, readable or compact, whatever their names and the
     * clients; the hash tag of a readable key is always its client part, so every key of one
     * request stays in one Cluster slot; and no bucket key is a policy record's.
     */
    @Test
    void twoNamespacesNeverShareAKeyAndTheHashTagIsTheClient() {
        Tally tally = new Tally();
        Gen<String> names = frequency(weight(2, strings("/ab{}: %", 0, 6)), weight(1, anyCodeUnits(0, 80)));
        qt(300).forAll(names, names, buckets(), bools()).checkAssert((ns1, ns2, b, cluster) -> {
            String n1 = BucketKeys.namespace(ns1);
            String n2 = BucketKeys.namespace(ns2);
            assertFalse(n1.contains("{") || n1.contains("}"), n1);
            assertTrue(n1.length() <= BucketKeys.MAX_NAMESPACE, n1);
            boolean sameNamespace = n1.equals(n2);
            tally.count("one namespace twice", sameNamespace);
            tally.count("a hashed namespace", n1.startsWith("#"));
            String c1 = BucketKeys.client(b.rawClient());
            String c2 = BucketKeys.client(b.otherRawClient());
            boolean sameBucket = b.policy().equals(b.otherPolicy()) && c1.equals(c2);
            String k1 = BucketKeys.key("tollgate:", n1, b.policy(), c1, Algorithm.TOKEN_BUCKET);
            String k2 = BucketKeys.key("tollgate:", n2, b.otherPolicy(), c2, Algorithm.TOKEN_BUCKET);
            assertEquals(sameNamespace && sameBucket, k1.equals(k2), k1 + " / " + k2);
            assertEquals(sameNamespace && sameBucket, BucketKeys.compactKey("t", n1, b.policy(), c1, cluster,
                    Algorithm.TOKEN_BUCKET).equals(BucketKeys.compactKey("t", n2, b.otherPolicy(), c2, cluster,
                    Algorithm.TOKEN_BUCKET)));
            assertEquals(c1, k1.substring(k1.indexOf('{') + 1, k1.indexOf('}')), "the hash tag is the client: " + k1);
            assertNotEquals(k1, BucketKeys.policyRecordKey("tollgate:", n2, b.otherPolicy()));
        });
        System.out.println("twoNamespacesNeverShareAKeyAndTheHashTagIsTheClient: " + tally);
        tally.reached("one namespace twice");
        tally.reached("a hashed namespace");
    }

    static Gen<String> policies() {
        Gen<String> names = strings("abcXYZ019_.-", 0, 8)
                .zip(of("a", "Z", "0", "log", "l"), (tail, head) -> head + tail);
        return names.assuming(n -> Policy.NAME.matcher(n).matches());
    }

    /** Two buckets: two policies and two raw clients. */
    record Buckets(String policy, String otherPolicy, String rawClient, String otherRawClient) {
    }

    /**
     * Two buckets drawn apart; one pair in ten is one bucket twice (the same policy, the same raw
     * client), so that the keys of one bucket are also compared. A raw client is any UTF-16 code
     * units (lone surrogates included): a third short ones from the characters the encoding is
     * about (safe ones, braces, '%'), a third up to 8 of any, a third up to 255 of any, so the
     * readable, the encoded and the hashed forms all occur.
     */
    static Gen<Buckets> buckets() {
        Gen<String> raw = frequency(
                weight(1, strings("ab1._:/@+=~-{}%7D ", 0, 12)),
                weight(1, anyCodeUnits(0, 8)),
                weight(1, anyCodeUnits(0, 255)));
        Gen<Buckets> apart = policies().zip(policies(), raw, raw, Buckets::new);
        Gen<Buckets> same = policies().zip(raw, (p, r) -> new Buckets(p, p, r, r));
        return frequency(weight(9, apart), weight(1, same));
    }

    static Gen<String> anyCodeUnits(int min, int max) {
        return lists(ints(Character.MIN_VALUE, Character.MAX_VALUE), min, max).map(units -> {
            StringBuilder text = new StringBuilder(units.size());
            units.forEach(u -> text.append((char) (int) u));
            return text.toString();
        });
    }
}
