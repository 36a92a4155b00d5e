package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tollgate.internal.AddressRanges;
import dev.tollgate.internal.IpAddresses;
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
