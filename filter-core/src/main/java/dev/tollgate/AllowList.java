package dev.tollgate;

import java.util.ArrayList;
import java.util.List;

/**
 * Clients that are never limited: addresses and ranges (of the client address, after trusted
 * proxies), principals and roles: {@code 10.0.0.0/8, principal:monitor, role:internal}.
 *
 * <p>Immutable and thread-safe.
 */
public final class AllowList {

    public static final String SYNTAX = "entries separated by ',': addresses or CIDR ranges, 'principal:<name>',"
            + " 'role:<role>', e.g. '10.0.0.0/8, principal:monitor, role:internal'";

    public static final AllowList NONE = new AllowList(AddressRanges.NONE, List.of(), List.of(), "");

    private final AddressRanges addresses;
    private final List<String> principals;
    private final List<String> roles;
    private final String text;

    private AllowList(AddressRanges addresses, List<String> principals, List<String> roles, String text) {
        this.addresses = addresses;
        this.principals = List.copyOf(principals);
        this.roles = List.copyOf(roles);
        this.text = text;
    }

    /**
     * Parses {@link #SYNTAX}: any mix of the three kinds, at least one entry.
     *
     * @throws IllegalArgumentException when an entry is not one of them, the list names nobody,
     *                                  or a range of prefix length 0 would let every address through
     */
    public static AllowList parse(String text) {
        List<String> ranges = new ArrayList<>();
        List<String> principals = new ArrayList<>();
        List<String> roles = new ArrayList<>();
        for (String raw : text.split(",")) {
            String e = raw.trim();
            if (e.isEmpty()) {
                continue;
            }
            if (e.startsWith("principal:")) {
                principals.add(nonEmpty(e, e.substring(10)));
            } else if (e.startsWith("role:")) {
                roles.add(nonEmpty(e, e.substring(5)));
            } else {
                ranges.add(e);
            }
        }
        AddressRanges addresses = AddressRanges.parse(String.join(",", ranges));
        if (addresses.coversAll()) {
            throw new IllegalArgumentException("a range of prefix length 0 covers every address");
        }
        if (addresses.isEmpty() && principals.isEmpty() && roles.isEmpty()) {
            throw new IllegalArgumentException("it lists nobody");
        }
        return new AllowList(addresses, principals, roles, text.trim());
    }

    private static String nonEmpty(String entry, String value) {
        if (value.isBlank()) {
            throw new IllegalArgumentException("'" + entry + "' names nobody");
        }
        return value.trim();
    }

    public boolean isEmpty() {
        return addresses.isEmpty() && principals.isEmpty() && roles.isEmpty();
    }

    /** Whether the client (its address as {@link ClientAddresses} found it, and its principal) is allowed. */
    public boolean allows(RequestView request, byte[] clientAddress) {
        if (addresses.contains(clientAddress)) {
            return true;
        }
        if (principals.isEmpty() && roles.isEmpty()) {
            return false;
        }
        String principal = request.principal();
        if (principal == null) {
            return false;
        }
        if (principals.contains(principal)) {
            return true;
        }
        for (String role : roles) {
            if (request.userInRole(role)) {
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
