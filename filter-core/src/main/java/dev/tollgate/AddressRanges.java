package dev.tollgate;

import dev.tollgate.internal.address.IpAddresses;
import java.util.ArrayList;
import java.util.List;

/**
 * A set of addresses and CIDR ranges, IPv4 and IPv6: {@code 10.0.0.0/8, 127.0.0.1, fd00::/8}.
 * Immutable and thread-safe.
 */
public final class AddressRanges {

    public static final String SYNTAX = "addresses and CIDR ranges separated by ',', e.g. '10.0.0.0/8, 192.0.2.7, fd00::/8'";

    public static final AddressRanges NONE = new AddressRanges(List.of());

    private final List<byte[]> networks;
    private final List<Integer> prefixes;
    private final String text;

    private AddressRanges(List<String> entries) {
        networks = new ArrayList<>();
        prefixes = new ArrayList<>();
        for (String e : entries) {
            add(e);
        }
        text = String.join(", ", entries);
    }

    /** Parses the syntax above; an empty text is the empty set. */
    public static AddressRanges parse(String text) {
        List<String> entries = new ArrayList<>();
        if (text != null) {
            for (String e : text.split(",")) {
                if (!e.isBlank()) {
                    entries.add(e.trim());
                }
            }
        }
        return new AddressRanges(entries);
    }

    private void add(String entry) {
        int slash = entry.indexOf('/');
        String address = slash < 0 ? entry : entry.substring(0, slash);
        String literal = address.trim();
        byte[] a = literal.indexOf(':') >= 0 ? IpAddresses.parseV6(literal) : IpAddresses.parseV4(literal);
        if (a == null) {
            throw new IllegalArgumentException("'" + entry + "' is not an address or a CIDR range");
        }
        int bits = a.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(entry.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + entry + "': the prefix length is not a number");
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("'" + entry + "': the prefix length must be from 0 to " + bits);
            }
        }
        networks.add(IpAddresses.mask(a, prefix));
        prefixes.add(prefix);
    }

    public boolean isEmpty() {
        return networks.isEmpty();
    }

    /** Whether a range of prefix length 0 makes this set every address of a family. */
    public boolean coversAll() {
        return prefixes.contains(0);
    }

    /** Whether the address (as {@link IpAddresses#parse} returns it) is in the set. */
    public boolean contains(byte[] address) {
        if (address == null) {
            return false;
        }
        for (int i = 0; i < networks.size(); i++) {
            byte[] net = networks.get(i);
            if (net.length == address.length && java.util.Arrays.equals(net, IpAddresses.mask(address, prefixes.get(i)))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return text;
    }
}
