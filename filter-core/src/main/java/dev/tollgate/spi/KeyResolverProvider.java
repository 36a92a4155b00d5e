package dev.tollgate.spi;

/**
 * Makes {@link KeyResolver}s for a name used in {@code tollgate.policy.<name>.key}. Register an
 * implementation in {@code META-INF/services/dev.tollgate.spi.KeyResolverProvider}; then
 * {@code key=<name>} or {@code key=<name>:<argument>} selects it.
 *
 * <p>Implementations must be thread-safe and have a public no-argument constructor.
 */
public interface KeyResolverProvider {

    /** The name used in configuration: letters, digits and '-', e.g. {@code tenant}. */
    String name();

    /**
     * @param argument the text after {@code <name>:}, or {@code null} when there is none
     * @throws IllegalArgumentException when the argument is not acceptable; the message is shown
     *                                  to the operator with the configuration key and value
     */
    KeyResolver create(String argument);
}
