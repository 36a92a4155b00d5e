package dev.tollgate.internal.metrics;


/**
 * A sink and, for the start-up log, where it sends: the server's registry or a global one.
 *
 * @param where   e.g. {@code the server's MeterRegistry (CDI)} or {@code Metrics.globalRegistry}
 * @param metrics the sink; {@link Metrics#NONE} when there is nowhere to send
 */
public record Destination(String where, Metrics metrics) {

    static final Destination NOWHERE = new Destination("nowhere", Metrics.NONE);
}
