package dev.tollgate.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.internal.identity.BucketKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The {@link RateLimitKey} rule as properties over generated argument lists, against a reference
 * model: a value is its text ({@code toString}), an array the list of its elements' models, and
 * null, or a {@code toString} that throws or answers null, is one null value. Two calls share a
 * bucket exactly when their models are equal; no value makes the interceptor throw; every key is
 * bounded like any client key.
 */
class ArgumentKeysProperties {

    /** The reference model of one argument value. */
    static Object model(Object v, int depth) {
        if (v != null && v.getClass().isArray()) {
            if (depth >= ArgumentKeys.MAX_DEPTH) {
                return null;
            }
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) {
                out.add(model(java.lang.reflect.Array.get(v, i), depth + 1));
            }
            return out;
        }
        try {
            return v == null ? null : v.toString();
        } catch (RuntimeException e) {
            return null;
        }
    }

    static List<Object> model(Object[] args) {
        List<Object> out = new ArrayList<>();
        for (Object a : args) {
            out.add(model(a, 0));
        }
        return out;
    }

    /** A value whose {@code toString} throws, as a careless argument type's may. */
    record Throwing(int n) {
        @Override
        public String toString() {
            throw new IllegalStateException("no text " + n);
        }
    }

    /** A value whose {@code toString} answers null. */
    record Silent(int n) {
        @Override
        public String toString() {
            return null;
        }
    }

    /** Generated arguments; described without calling a throwing {@code toString}, for jqwik's report. */
    record Args(Object[] values) {
        @Override
        public String toString() {
            return describe(values);
        }

        static String describe(Object v) {
            if (v instanceof Throwing || v instanceof Silent) {
                return v.getClass().getSimpleName();
            }
            if (v instanceof Object[] a) {
                List<String> out = new ArrayList<>();
                for (Object o : a) {
                    out.add(describe(o));
                }
                return out.toString();
            }
            if (v instanceof int[] ints) {
                return Arrays.toString(ints);
            }
            return v instanceof String s ? '"' + s + '"' : String.valueOf(v);
        }
    }

    @Provide
    Arbitrary<Args> arguments() {
        Arbitrary<String> tricky = Arbitraries.strings().withChars("a%,[]0 ").ofMaxLength(6);
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(40);
        Arbitrary<String> longOnes = Arbitraries.strings().withChars("ab%,").ofMinLength(100).ofMaxLength(400);
        Arbitrary<Object> scalar = Arbitraries.oneOf(
                tricky.map(s -> (Object) s), any.map(s -> (Object) s), longOnes.map(s -> (Object) s),
                Arbitraries.integers().between(-3, 3).map(i -> (Object) i),
                Arbitraries.just(null),
                Arbitraries.integers().between(0, 2).map(Throwing::new),
                Arbitraries.integers().between(0, 2).map(Silent::new));
        Arbitrary<Object> array = Arbitraries.oneOf(
                scalar.list().ofMaxSize(3).map(l -> (Object) l.toArray()),
                tricky.list().ofMaxSize(3).map(l -> (Object) l.toArray(new String[0])),
                Arbitraries.integers().between(0, 3).list().ofMaxSize(3)
                        .map(l -> (Object) l.stream().mapToInt(Integer::intValue).toArray()));
        return Arbitraries.oneOf(scalar, scalar, array).list().ofMinSize(1).ofMaxSize(3).map(l -> new Args(l.toArray()));
    }

    /** A copy that is equal, never the same objects: equality must come from the values. */
    static Object[] copy(Object[] args) {
        Object[] out = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof String s) {
                out[i] = new String(s.toCharArray());
            } else if (a instanceof Object[] arr) {
                out[i] = copy(arr);
            } else if (a instanceof int[] ints) {
                out[i] = ints.clone();
            } else {
                out[i] = a;
            }
        }
        return out;
    }

    @Property(tries = 400)
    void equalArgumentsShareABucket(@ForAll("arguments") Args generated) {
        Object[] args = generated.values();
        String key = ArgumentKeys.of(args);
        assertEquals(key, ArgumentKeys.of(copy(args)));
        assertEquals(BucketKeys.client(key), BucketKeys.client(ArgumentKeys.of(copy(args))));
    }

    @Property(tries = 1000)
    void twoCallsShareABucketExactlyWhenTheirValuesAreEqual(@ForAll("arguments") Args ga, @ForAll("arguments") Args gb) {
        Object[] a = ga.values();
        Object[] b = gb.values();
        boolean same = Objects.equals(model(a), model(b));
        String ka = ArgumentKeys.of(a);
        String kb = ArgumentKeys.of(b);
        if (same) {
            assertEquals(ka, kb);
            assertEquals(BucketKeys.client(ka), BucketKeys.client(kb));
        } else {
            assertNotEquals(ka, kb, ga + " vs " + gb);
            assertNotEquals(BucketKeys.client(ka), BucketKeys.client(kb), "made safe and bounded, still apart");
        }
    }

    @Property(tries = 400)
    void everyKeyIsBoundedAndStartsWithItsPrefix(@ForAll("arguments") Args generated) {
        Object[] args = generated.values();
        String key = ArgumentKeys.of(args);
        assertTrue(key.startsWith(ArgumentKeys.PREFIX), key);
        String client = BucketKeys.client(key);
        assertTrue(client.length() <= BucketKeys.MAX_CLIENT, client);
    }

    @Example
    void anAbsurdlyLongValueIsHashedNotRefused() {
        String huge = "t".repeat(5_000_000);
        String client = BucketKeys.client(ArgumentKeys.of(huge));
        assertTrue(client.startsWith("#") && client.length() < 30, client);
        assertNotEquals(client, BucketKeys.client(ArgumentKeys.of(huge + "u")));
    }

    @Example
    void theNullValueIsOneKeyThatNoTextMakes() {
        assertEquals("arg=%00", ArgumentKeys.of((Object) null));
        assertEquals("arg=%00", ArgumentKeys.of(new Throwing(1)));
        assertEquals("arg=%2500", ArgumentKeys.of("%00"));
        assertEquals("arg=null", ArgumentKeys.of("null"));
        assertEquals("arg=a%2Cb", ArgumentKeys.of("a,b"));
        assertEquals("arg=a,b", ArgumentKeys.of("a", "b"));
        assertEquals("arg=[a,b]", ArgumentKeys.of((Object) new String[] {"a", "b"}));
        assertEquals("arg=acme", ArgumentKeys.of("acme"));
    }

    @Example
    void anEmptyArrayAndAnArrayOfOneEmptyTextAreTwoKeys() {
        // Found by the property on some seeds: both were "arg=[]".
        assertEquals("arg=[]", ArgumentKeys.of((Object) new String[0]));
        assertEquals("arg=[%22%22]", ArgumentKeys.of((Object) new String[] {""}));
        assertEquals("arg=%22%22", ArgumentKeys.of(""));
        assertEquals("arg=%2522%2522", ArgumentKeys.of("%22%22"));
    }

    @Example
    void aSelfContainingArrayEnds() {
        Object[] loop = new Object[1];
        loop[0] = loop;
        assertTrue(ArgumentKeys.of((Object) loop).contains(ArgumentKeys.NULL));
    }
}
