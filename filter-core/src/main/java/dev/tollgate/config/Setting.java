package dev.tollgate.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration key: its name, its default, how its text is parsed, what it accepts (the
 * words a refusal quotes) and what it means (in Markdown, as docs/reference/configuration.md
 * shows it). Everything else about a key, its environment variable, its row in that page, the
 * default in {@link RedisSettings}, is derived from this.
 *
 * <p>A name may hold {@code <name>} (a policy) and {@code <plan>} (a plan): a template, made
 * concrete by {@link #forPolicy} and {@link #forPlan}, which substitute in the default too.
 *
 * <p>The default is written as an operator writes a value ({@code 100ms}) and parsed by the
 * setting's own parser, so it can never disagree with it; a default in parentheses
 * ({@code (none)}) is a description, and the value is then the one given with it. A few
 * defaults are an instance that code recognises by identity ({@code RequestMatcher.ALL} for
 * {@code /**}): that instance is given with the text it means.
 *
 * <p>Immutable and thread-safe when its parser is.
 *
 * @param <T> the parsed type
 */
public final class Setting<T> {

    private final String name;
    private final String shownDefault;
    private final T unset;
    private final String accepted;
    private final Function<String, T> parser;
    private final String meaning;

    Setting(String name, String shownDefault, T unset, String accepted, Function<String, T> parser, String meaning) {
        this.name = Objects.requireNonNull(name);
        this.shownDefault = Objects.requireNonNull(shownDefault);
        this.unset = unset;
        this.accepted = Objects.requireNonNull(accepted);
        this.parser = Objects.requireNonNull(parser);
        this.meaning = Objects.requireNonNull(meaning);
    }

    /** The key, e.g. {@code tollgate.redis.timeout} or the template {@code tollgate.policy.<name>.limits}. */
    public String name() {
        return name;
    }

    /**
     * The environment variable, by the MicroProfile Config rule; a template keeps its placeholders
     * in upper case: {@code TOLLGATE_POLICY_<NAME>_LIMITS}.
     */
    public String environmentName() {
        return Settings.environmentName(name.replace("<name>", "XNAMEX").replace("<plan>", "XPLANX"))
                .replace("XNAMEX", "<NAME>").replace("XPLANX", "<PLAN>");
    }

    /** The default as docs/reference/configuration.md shows it: a value in backticks, or a description in parentheses. */
    public String shownDefault() {
        return describesDefault() ? shownDefault : "`" + shownDefault + "`";
    }

    /** The default as written: a value such as {@code 100ms}, or a description such as {@code (none)}. */
    public String defaultText() {
        return shownDefault;
    }

    /** The value when the key is not set. */
    public T defaultValue() {
        return unset != null || describesDefault() ? unset : parser.apply(shownDefault);
    }

    /** What a refusal says is accepted. */
    public String accepted() {
        return accepted;
    }

    /** What the key does, in Markdown, as docs/reference/configuration.md says it. */
    public String meaning() {
        return meaning;
    }

    /**
     * @throws RuntimeException (usually {@link IllegalArgumentException}) whose message says why the text is refused
     */
    public T parse(String text) {
        return parser.apply(text);
    }

    /** Whether the name holds {@code <name>} or {@code <plan>}. */
    public boolean isTemplate() {
        return name.contains("<");
    }

    /** This setting for policy {@code policy}: {@code tollgate.policy.<name>.limits} becomes {@code tollgate.policy.api.limits}. */
    public Setting<T> forPolicy(String policy) {
        return substitute("<name>", policy);
    }

    /** This setting for plan {@code plan}, in the name and in a default such as {@code <plan>}. */
    public Setting<T> forPlan(String plan) {
        return substitute("<plan>", plan);
    }

    /** The same key read with another parser, for a value that needs context (the class path's key resolvers). */
    <U> Setting<U> withParser(Function<String, U> other, U otherUnset) {
        return new Setting<>(name, shownDefault, otherUnset, accepted, other, meaning);
    }

    private Setting<T> substitute(String placeholder, String value) {
        return new Setting<>(name.replace(placeholder, value), shownDefault.replace(placeholder, value), unset, accepted,
                parser, meaning);
    }

    private boolean describesDefault() {
        return shownDefault.startsWith("(");
    }

    @Override
    public String toString() {
        return name;
    }
}
