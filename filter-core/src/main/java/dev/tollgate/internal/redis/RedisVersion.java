package dev.tollgate.internal.redis;

import dev.tollgate.internal.Messages;

/**
 * The oldest Redis the scripts run on, and the check of a server's version against it.
 *
 * <p>{@code bucket.lua} reads {@code TIME} and then writes, which Redis replicates only as effects
 * (the default from 5.0; before, such a script is refused); {@code refund.lua} writes with
 * {@code SET ... KEEPTTL}, which 6.0 added. So 6.0.0 is the minimum.
 *
 * <p>Stateless and thread-safe.
 */
public final class RedisVersion {

    private RedisVersion() {
    }

    /** The oldest version Tollgate's scripts run on. */
    public static final String MINIMUM = "6.0.0";
    static final String WHY = "bucket.lua writes after reading TIME, which needs 5.0, and refund.lua uses SET KEEPTTL,"
            + " which needs 6.0";

    /** A server older than {@link #MINIMUM}: a failure like Redis being down, so the failure mode applies. */
    public static final class TooOldException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final String found;

        TooOldException(String where, String found) {
            super(Messages.redisTooOld(where, found, MINIMUM, WHY), null, false, false);
            this.found = found;
        }

        /** The version the server reported. */
        public String found() {
            return found;
        }
    }

    /**
     * The {@code redis_version} field of an {@code INFO server} reply, or {@code null} if it has
     * none.
     */
    public static String fromInfo(String info) {
        if (info == null) {
            return null;
        }
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                String v = line.substring("redis_version:".length()).trim();
                return v.isEmpty() ? null : v;
            }
        }
        return null;
    }

    /**
     * Whether {@code version} is at least {@code minimum}, comparing the dot-separated numbers from
     * the left (a missing part counts as 0; anything after the digits of a part, such as
     * {@code -rc1}, is ignored). A version without a leading number is not at least anything.
     */
    public static boolean atLeast(String version, String minimum) {
        long[] v = numbers(version);
        long[] m = numbers(minimum);
        if (v == null) {
            return false;
        }
        for (int i = 0; i < Math.max(v.length, m.length); i++) {
            long a = i < v.length ? v[i] : 0;
            long b = i < m.length ? m[i] : 0;
            if (a != b) {
                return a > b;
            }
        }
        return true;
    }

    /**
     * Refuses a server older than {@link #MINIMUM}. A server that reports no version is let
     * through: Redis always reports one, and a compatible server that does not is not refused on
     * a guess.
     *
     * @param where the server, for the message (no password)
     * @throws TooOldException when the version is older
     */
    public static void require(String version, String where) {
        if (version != null && !atLeast(version, MINIMUM)) {
            throw new TooOldException(where, version);
        }
    }

    /** The leading numbers of {@code 7.0.15} or {@code 7.2.0-rc1}; {@code null} if it does not start with one. */
    private static long[] numbers(String version) {
        if (version == null) {
            return null;
        }
        String[] parts = version.trim().split("\\.", -1);
        long[] out = new long[parts.length];
        int n = 0;
        for (String p : parts) {
            int digits = 0;
            while (digits < p.length() && digits < 9 && Character.isDigit(p.charAt(digits)) && p.charAt(digits) < 128) {
                digits++;
            }
            if (digits == 0) {
                break;
            }
            out[n++] = Long.parseLong(p.substring(0, digits));
            if (digits < p.length()) {
                break; // "0-rc1": the rest is a label
            }
        }
        return n == 0 ? null : java.util.Arrays.copyOf(out, n);
    }
}
