package dev.tollgate.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;
import org.quicktheories.impl.Constraint;

/**
 * The small vocabulary of generators the properties share, on top of QuickTheories'
 * {@link SourceDSL} and {@link Generate}. Every generator here shrinks: a choice towards its first
 * value, a number towards its lower bound, a list towards fewer and smaller elements.
 */
public final class Gens {

    private Gens() {
    }

    /** One of the values, shrinking towards the first. Values may repeat to weigh them. */
    @SafeVarargs
    public static <T> Gen<T> of(T... values) {
        return Generate.pick(Arrays.asList(values));
    }

    /** One of the values, shrinking towards the first. */
    public static <T> Gen<T> of(List<T> values) {
        return Generate.pick(List.copyOf(values));
    }

    /** Always {@code value}. */
    public static <T> Gen<T> just(T value) {
        return Generate.constant(value);
    }

    /** {@code true} or {@code false}, shrinking towards {@code false}. */
    public static Gen<Boolean> bools() {
        return Generate.booleans();
    }

    /** An int in {@code [min, max]}, shrinking towards {@code min}. */
    public static Gen<Integer> ints(int min, int max) {
        return SourceDSL.integers().between(min, max);
    }

    /** A long in {@code [min, max]}, shrinking towards {@code min}. */
    public static Gen<Long> longs(long min, long max) {
        return SourceDSL.longs().between(min, max);
    }

    /** A weighted choice for {@link #frequency}. */
    public static <T> Pair<Integer, Gen<T>> weight(int weight, Gen<T> gen) {
        return Pair.of(weight, gen);
    }

    /** One of the generators, picked in proportion to its weight (shrinking towards the first). */
    @SafeVarargs
    public static <T> Gen<T> frequency(Pair<Integer, Gen<T>>... choices) {
        return Generate.frequency(Arrays.asList(choices));
    }

    /** Whether an element drawn for a list is kept: 15 times in 16; shrinks towards dropping it. */
    private static final Constraint KEEP = Constraint.between(0, 15).withShrinkPoint(0);

    /**
     * A list of {@code min} to {@code max} elements. Its length is drawn first, then each element
     * with a mark that keeps it 15 times in 16 and shrinks towards dropping it, so that a failing
     * list shrinks by losing any of its elements, not only its last ones (QuickTheories' own lists
     * shrink from the end: a counterexample kept dozens of steps where two mattered). Never fewer
     * than {@code min}: the first dropped elements come back.
     */
    public static <T> Gen<List<T>> lists(Gen<T> element, int min, int max) {
        Gen<Integer> size = ints(min, max);
        return in -> {
            int n = size.generate(in);
            List<T> kept = new ArrayList<>(n);
            List<T> dropped = new ArrayList<>(0);
            for (int i = 0; i < n; i++) {
                boolean keep = in.next(KEEP) != 0;
                T e = element.generate(in); // drawn either way: dropping one leaves the others' draws as they were
                (keep ? kept : dropped).add(e);
            }
            for (int i = 0; kept.size() < min && i < dropped.size(); i++) {
                kept.add(dropped.get(i));
            }
            return kept;
        };
    }

    /** A list of exactly {@code size} elements. */
    public static <T> Gen<List<T>> lists(Gen<T> element, int size) {
        return SourceDSL.lists().of(element).ofSize(size);
    }

    /** A string of {@code min} to {@code max} characters drawn from {@code alphabet}. */
    public static Gen<String> strings(String alphabet, int min, int max) {
        Gen<Character> letter = of(alphabet.chars().mapToObj(c -> (char) c).toList());
        return lists(letter, min, max).map(chars -> {
            StringBuilder text = new StringBuilder(chars.size());
            chars.forEach(text::append);
            return text.toString();
        });
    }

    /** A string of {@code min} to {@code max} characters of any code point of the BMP but surrogates. */
    public static Gen<String> anyStrings(int min, int max) {
        return SourceDSL.strings().basicMultilingualPlaneAlphabet().ofLengthBetween(min, max);
    }

    /** {@code length} random bytes. */
    public static Gen<byte[]> bytes(int length) {
        return lists(ints(Byte.MIN_VALUE, Byte.MAX_VALUE), length).map(values -> {
            byte[] bytes = new byte[values.size()];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = values.get(i).byteValue();
            }
            return bytes;
        });
    }
}
