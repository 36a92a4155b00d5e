package dev.tollgate.internal.identity;

import dev.tollgate.Algorithm;
import dev.tollgate.Policy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Storage keys. A key is {@code <prefix><namespace>:{<client>}:<policy>} for a token bucket and
 * {@code <prefix><namespace>:{<client>}:<policy>:log} for a sliding log: the client part is the
 * Redis Cluster hash tag, so every policy of one client lands on one slot and can be checked in
 * one atomic call. The namespace ({@link #namespace}) is the application's: nodes of one
 * application share buckets, two applications on one Redis never do unless given one namespace.
 * It is made safe like the client part, so it holds no brace and cannot move the hash tag.
 *
 * <p>A plan with limits of its own counts in a bucket of its own: the policy part is then
 * {@code <policy>@<plan>} ({@link #bucketName}). Names never contain {@code '@'}. Were the plans
 * to share one bucket, a request under the plan with the shorter time to fill would cap the debt
 * run up under the other, forgiving it: a spent pro client would get most of its burst back from
 * one refused anonymous request at the same address.
 *
 * <p>The algorithm is part of the key because the two keep different Redis types (a string, a
 * sorted set): a policy switched from one to the other must find a key of its own type, not the
 * old one (which Redis would refuse with WRONGTYPE, for every client at once). Policy names never
 * contain {@code ':'}, so no log key is another policy's bucket key. The token-bucket key is the
 * one earlier versions used for both; sliding logs started empty once then. (The namespace made
 * every key new once more: buckets start full once at that upgrade, as the CHANGELOG says.)
 *
 * <p>The client part comes from the request, so it is made safe: characters outside
 * {@code [A-Za-z0-9._:/@+=~-]} are percent-encoded as UTF-8 (a lone surrogate, which is no
 * character, as {@code %uD800}), so braces can never break the hash tag and no two inputs share
 * an encoding; anything longer than {@value #MAX_CLIENT} characters after that is replaced by
 * {@code #} and 22 characters of its SHA-256. A key is therefore never longer
 * than the prefix plus {@value #MAX_CLIENT} plus the policy name plus 7.
 */
public final class BucketKeys {

    /** The longest client part kept readable. */
    public static final int MAX_CLIENT = 120;
    /** The longest namespace part kept readable. */
    public static final int MAX_NAMESPACE = 64;

    private static final boolean[] SAFE = new boolean[128];

    static {
        for (char c = 'a'; c <= 'z'; c++) {
            SAFE[c] = true;
        }
        for (char c = 'A'; c <= 'Z'; c++) {
            SAFE[c] = true;
        }
        for (char c = '0'; c <= '9'; c++) {
            SAFE[c] = true;
        }
        for (char c : "._:/@+=~-".toCharArray()) {
            SAFE[c] = true;
        }
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private BucketKeys() {
    }

    /** The client part of a key: readable when short and plain, else percent-encoded or hashed. */
    public static String client(String raw) {
        return safe(raw, MAX_CLIENT);
    }

    /**
     * The namespace part of a key, made safe as {@link #client} makes a client's (no brace, no
     * space, no control character survives: each is percent-encoded) and bounded at
     * {@value #MAX_NAMESPACE} characters (longer: {@code #} and 22 characters of its SHA-256).
     * A context path such as {@code /shop} stays as it is.
     */
    public static String namespace(String raw) {
        return safe(raw, MAX_NAMESPACE);
    }

    private static String safe(String raw, int max) {
        int n = raw.length();
        boolean plain = n <= max;
        for (int i = 0; plain && i < n; i++) {
            char c = raw.charAt(i);
            plain = c < 128 && SAFE[c];
        }
        if (plain) {
            return raw;
        }
        if (n <= max) {
            StringBuilder sb = new StringBuilder(n + 16);
            for (int i = 0; i < n && sb.length() <= max; i++) {
                char c = raw.charAt(i);
                if (c < 128 && SAFE[c]) {
                    sb.append(c);
                } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(raw.charAt(i + 1))) {
                    escape(raw.substring(i, i + 2), sb);
                    i++;
                } else if (Character.isSurrogate(c)) {
                    // Not a character: '%u' and the code unit, which no '%XX' can be confused with.
                    sb.append("%u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 15]).append(HEX[(c >> 4) & 15]).append(HEX[c & 15]);
                } else {
                    escape(String.valueOf(c), sb);
                }
            }
            return sb.length() <= max ? sb.toString() : hashed(raw);
        }
        return hashed(raw);
    }

    private static void escape(String character, StringBuilder sb) {
        for (byte b : character.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            sb.append('%').append(HEX[c >> 4]).append(HEX[c & 15]);
        }
    }

    /**
     * The name a policy's bucket goes by for a request under {@code plan}: the policy's name, or
     * {@code <policy>@<plan>} when that plan has limits of its own.
     */
    public static String bucketName(Policy policy, String plan) {
        return plan != null && policy.planLimits().containsKey(plan) ? policy.name() + "@" + plan : policy.name();
    }

    /** What a sliding log's key adds to the token bucket's. */
    static final String LOG_SUFFIX = ":log";
    /** What a calendar quota's key adds: its string is no token bucket's, so neither reads the other's. */
    static final String CALENDAR_SUFFIX = ":cal";

    /** The storage key of a client under a policy that counts with {@code algorithm}, without a namespace (the layout before namespaces). */
    public static String key(String prefix, String policy, String client, Algorithm algorithm) {
        return prefix + "{" + client + "}:" + policy + suffix(algorithm);
    }

    /**
     * The storage key of a client under a policy in a namespace: {@code <prefix><namespace>:{<client>}:<policy>},
     * {@code namespace} as {@link #namespace} made it; {@code null}: none, as {@link #key(String, String, String, Algorithm)}.
     */
    public static String key(String prefix, String namespace, String policy, String client, Algorithm algorithm) {
        return key(namespace == null ? prefix : prefix + namespace + ":", policy, client, algorithm);
    }

    /**
     * The key of the record of a policy's limits in a namespace ({@code internal.engine.PolicyRecords}):
     * {@code <prefix><namespace>:policy:<policy>}. No bucket key is one: those hold a brace, or
     * (compact) no {@code ':'} before their suffix; policy names hold no {@code ':'}.
     */
    public static String policyRecordKey(String prefix, String namespace, String policy) {
        return prefix + namespace + ":policy:" + policy;
    }

    /** The token-bucket key of a client under a policy; see {@link #key(String, String, String, Algorithm)}. */
    public static String key(String prefix, String policy, String client) {
        return key(prefix, policy, client, Algorithm.TOKEN_BUCKET);
    }

    private static String suffix(Algorithm algorithm) {
        return switch (algorithm) {
            case SLIDING_LOG -> LOG_SUFFIX;
            case CALENDAR -> CALENDAR_SUFFIX;
            case TOKEN_BUCKET -> "";
        };
    }

    /**
     * The compact storage key ({@code tollgate.redis.key-format=compact}): 10 characters of the
     * client's SHA-256 (60 bits) and 2 of the policy's, e.g. {@code tXq3v0Pz9mKBc}. Redis stores a
     * key of up to 14 characters in a smaller allocation: with a prefix of at most two characters a
     * one-limit bucket then takes 88 bytes instead of 120. In a Cluster the client part is wrapped
     * in braces, the hash tag (104 bytes). The key no longer says who the client is. A sliding log's
     * key ends with {@code :log}, which no token-bucket key does.
     */
    public static String compactKey(String prefix, String policy, String client, boolean cluster, Algorithm algorithm) {
        return compactKey(prefix, null, policy, client, cluster, algorithm);
    }

    /**
     * The compact key in a namespace: the namespace goes into the client's hash
     * (the SHA-256 of the namespace, an opening brace and the client: injective, since the namespace part
     * holds no brace),
     * so the key is no longer than without one and two namespaces share no key but by a 60-bit
     * collision, as two clients would. {@code namespace} {@code null}: none.
     */
    public static String compactKey(String prefix, String namespace, String policy, String client, boolean cluster,
                                    Algorithm algorithm) {
        String c = digest(namespace == null ? client : namespace + "{" + client, 8).substring(0, 10);
        return prefix + (cluster ? "{" + c + "}" : c) + digest(policy, 3).substring(0, 2) + suffix(algorithm);
    }

    /** The compact token-bucket key; see {@link #compactKey(String, String, String, boolean, Algorithm)}. */
    public static String compactKey(String prefix, String policy, String client, boolean cluster) {
        return compactKey(prefix, policy, client, cluster, Algorithm.TOKEN_BUCKET);
    }

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    /** The first {@code bytes} bytes of the SHA-256 of a text, base64url without padding. */
    static String digest(String text, int bytes) {
        byte[] d = SHA256.get().digest(text.getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(d, bytes));
    }

    private static String hashed(String raw) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(raw.getBytes(StandardCharsets.UTF_8));
            return "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
