package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tollgate.internal.address.IpAddresses;
import dev.tollgate.testing.TestRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientAddressesTest {

    static final ClientAddresses XFF = new ClientAddresses(
            AddressRanges.parse("10.0.0.0/8, 192.168.1.1, fd00::/8"), ClientAddresses.Header.X_FORWARDED_FOR, 32, 64);
    static final ClientAddresses FORWARDED = new ClientAddresses(
            AddressRanges.parse("10.0.0.0/8"), ClientAddresses.Header.FORWARDED, 32, 64);

    static String client(ClientAddresses a, TestRequest r) {
        return a.key(a.client(r));
    }

    @Test
    void aForgedHeaderFromAnUntrustedPeerChangesNothing() {
        TestRequest forged = TestRequest.get("/").from("203.0.113.9").header("X-Forwarded-For", "198.51.100.1, 10.0.0.1");
        assertEquals("203.0.113.9", client(XFF, forged));
        assertEquals("203.0.113.9", client(ClientAddresses.DEFAULT, forged), "no trusted proxy: never believed");
    }

    @Test
    void aChainThroughTwoTrustedProxiesYieldsTheRealClient() {
        // client 198.51.100.7 -> proxy 10.1.1.1 -> proxy 10.2.2.2 -> us
        TestRequest r = TestRequest.get("/").from("10.2.2.2").header("X-Forwarded-For", "198.51.100.7, 10.1.1.1");
        assertEquals("198.51.100.7", client(XFF, r));
    }

    @Test
    void whatTheClientWroteLeftOfTheFirstUntrustedHopIsIgnored() {
        TestRequest r = TestRequest.get("/").from("10.2.2.2")
                .header("X-Forwarded-For", "1.1.1.1, 10.9.9.9, 198.51.100.7, 10.1.1.1");
        assertEquals("198.51.100.7", client(XFF, r), "the client forged '1.1.1.1, 10.9.9.9' in front");
    }

    @Test
    void severalFieldLinesAreOneList() {
        TestRequest r = TestRequest.get("/").from("10.2.2.2")
                .header("X-Forwarded-For", "198.51.100.7").header("X-Forwarded-For", "10.1.1.1");
        assertEquals("198.51.100.7", client(XFF, r));
    }

    @Test
    void anEntryThatIsNotAnAddressEndsTheWalkAtTheHopThatReportedIt() {
        TestRequest r = TestRequest.get("/").from("10.2.2.2").header("X-Forwarded-For", "not-an-ip, 10.1.1.1");
        assertEquals("10.1.1.1", client(XFF, r));
        TestRequest empty = TestRequest.get("/").from("10.2.2.2");
        assertEquals("10.2.2.2", client(XFF, empty), "a trusted proxy that forwarded nothing is the client");
    }

    @Test
    void forwardedElementsAreParsedWithQuotesPortsAndIpv6() {
        TestRequest r = TestRequest.get("/").from("10.0.0.5")
                .header("Forwarded", "for=\"[2001:db8:cafe::17]:4711\";proto=https, for=10.0.0.4;by=10.0.0.5");
        assertEquals("2001:db8:cafe::/64", client(FORWARDED, r));
        TestRequest v4 = TestRequest.get("/").from("10.0.0.5").header("Forwarded", "For=\"198.51.100.2:8080\"");
        assertEquals("198.51.100.2", client(FORWARDED, v4));
        TestRequest hidden = TestRequest.get("/").from("10.0.0.5").header("Forwarded", "for=_hidden, for=unknown");
        assertEquals("10.0.0.5", client(FORWARDED, hidden));
        TestRequest quotedComma = TestRequest.get("/").from("10.0.0.5").header("Forwarded", "for=\"a,b\";x=1, for=192.0.2.8");
        assertEquals("192.0.2.8", client(FORWARDED, quotedComma));
    }

    /** Issue 10, finding 1: a quote the client leaves open must not swallow what the proxy appends. */
    @ParameterizedTest
    @ValueSource(strings = {"for=6.6.6.6;x=\"", "for=6.6.6.7;by=\"x", "\"", "for=\"6.6.6.8", "for=6.6.6.9;x=\"a\\"})
    void aQuoteTheClientLeftOpenCannotSwallowTheProxysElement(String clientWrote) {
        TestRequest sameLine = TestRequest.get("/").from("10.0.0.5").header("Forwarded", clientWrote + ", for=203.0.113.5");
        assertEquals("203.0.113.5", client(FORWARDED, sameLine));
        TestRequest nextLine = TestRequest.get("/").from("10.0.0.5")
                .header("Forwarded", clientWrote).header("Forwarded", "for=203.0.113.5");
        assertEquals("203.0.113.5", client(FORWARDED, nextLine), "a quoted string never spans field lines");
        TestRequest xff = TestRequest.get("/").from("10.2.2.2").header("X-Forwarded-For", clientWrote + ", 203.0.113.5");
        assertEquals("203.0.113.5", client(XFF, xff), "X-Forwarded-For has no quoting");
    }

    @Test
    void quotedPairsAndQuotedCommasInAProxysElementAreReadExactly() {
        TestRequest r = TestRequest.get("/").from("10.0.0.5")
                .header("Forwarded", "for=6.6.6.6, for=203.0.113.5;by=\"_a\\\",b\", host=\"x\\\\\";for=10.0.0.4");
        assertEquals("203.0.113.5", client(FORWARDED, r));
    }

    @Test
    void aMalformedElementInTheTrustedPartEndsTheWalkAtTheHopThatReportedIt() {
        for (String bad : new String[] {"for=\"203.0.113.5", "for=203.0.113.5;for=198.51.100.1", "proto=https",
            "for=203.0.113.5;x", "for=203.0.113.5 by=x", "for=\"203.0.113.5\"x", "=203.0.113.5", "fo r=203.0.113.5"}) {
            TestRequest r = TestRequest.get("/").from("10.0.0.5").header("Forwarded", "for=6.6.6.6, " + bad + ", for=10.0.0.4");
            assertEquals("10.0.0.4", client(FORWARDED, r), bad);
        }
        TestRequest r = TestRequest.get("/").from("10.0.0.5").header("Forwarded", "for=6.6.6.6, for=203.0.113.5;;proto=https;");
        assertEquals("203.0.113.5", client(FORWARDED, r), "empty pairs are allowed (RFC 7239 section 4)");
    }

    @Test
    void atMost32HopsAreWalked() {
        String proxies = "";
        for (int i = 1; i <= ClientAddresses.MAX_HOPS; i++) {
            proxies += ", 10.0.0." + i;
        }
        TestRequest thirtyTwo = TestRequest.get("/").from("10.0.1.1").header("X-Forwarded-For", "6.6.6.6" + proxies);
        assertEquals("10.0.0.1", client(XFF, thirtyTwo), "the 33rd hop from the right is not read");
        TestRequest thirtyOne = TestRequest.get("/").from("10.0.1.1")
                .header("X-Forwarded-For", "6.6.6.6" + proxies.substring(proxies.indexOf(", 10.0.0.2")));
        assertEquals("6.6.6.6", client(XFF, thirtyOne));
    }

    @Test
    void atMost8192CharactersAreReadFromTheRight() {
        String pad = "1".repeat(ClientAddresses.MAX_HEADER_CHARS - "198.51.100.7, 10.1.1.1".length());
        TestRequest fits = TestRequest.get("/").from("10.2.2.2").header("X-Forwarded-For", pad)
                .header("X-Forwarded-For", "198.51.100.7, 10.1.1.1");
        assertEquals("198.51.100.7", client(XFF, fits));
        TestRequest over = TestRequest.get("/").from("10.2.2.2")
                .header("X-Forwarded-For", "198.51.100.7, " + "x".repeat(ClientAddresses.MAX_HEADER_CHARS) + ", 10.1.1.1");
        assertEquals("10.1.1.1", client(XFF, over), "an element beyond the bound ends the walk");
    }

    @Test
    void ipv6ClientsAreGroupedByTheirPrefixSoRotationInsideA64ShareOneKey() {
        String a = client(ClientAddresses.DEFAULT, TestRequest.get("/").from("2001:db8:1:2::1"));
        String b = client(ClientAddresses.DEFAULT, TestRequest.get("/").from("2001:db8:1:2:ffff:eeee:dddd:cccc"));
        String other = client(ClientAddresses.DEFAULT, TestRequest.get("/").from("2001:db8:1:3::1"));
        assertEquals("2001:db8:1:2::/64", a);
        assertEquals(a, b);
        assertEquals("2001:db8:1:3::/64", other);
        ClientAddresses slash24 = new ClientAddresses(AddressRanges.NONE, ClientAddresses.Header.X_FORWARDED_FOR, 24, 128);
        assertEquals("203.0.113.0/24", client(slash24, TestRequest.get("/").from("203.0.113.77")));
        assertEquals("2001:db8::1", client(slash24, TestRequest.get("/").from("2001:db8::1")));
        assertEquals("192.0.2.1", client(ClientAddresses.DEFAULT, TestRequest.get("/").from("::ffff:192.0.2.1")),
                "an IPv4-mapped address is the IPv4 client");
    }

    @Test
    void aHugeHeaderKeepsItsRightEnd() {
        String junk = "1.2.3.4, ".repeat(5_000);
        TestRequest r = TestRequest.get("/").from("10.2.2.2").header("X-Forwarded-For", junk + "198.51.100.7, 10.1.1.1");
        assertEquals("198.51.100.7", client(XFF, r));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "localhost", "example.com", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4:99999",
        "[1.2.3.4]", ":::", "1::2::3", "12345::", "g::1", "[::1", "1.2.3.-4", "\u0000", "999999999999"})
    void nonAddressesAreRefusedWithoutALookup(String text) {
        assertNull(IpAddresses.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"192.0.2.1", "192.0.2.1:80", "::1", "[::1]:8080", "fe80::1%eth0", "2001:DB8::1",
        "::ffff:192.0.2.1", "1:2:3:4:5:6:7:8", "::", "1::"})
    void addressesAreAccepted(String text) {
        org.junit.jupiter.api.Assertions.assertNotNull(IpAddresses.parse(text), text);
    }

    @Test
    void ipv6IsWrittenTheCanonicalWay() {
        assertEquals("2001:db8::1", IpAddresses.format(IpAddresses.parse("2001:0DB8:0:0:0:0:0:1")));
        assertEquals("2001:db8:0:1:1:1:1:1", IpAddresses.format(IpAddresses.parse("2001:db8:0:1:1:1:1:1")));
        assertEquals("::", IpAddresses.format(IpAddresses.parse("::")));
        assertEquals("1::", IpAddresses.format(IpAddresses.parse("1::")));
    }
}
