package dev.tollgate.jaxrs.client;

import dev.tollgate.Outbound;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientResponseContext;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A clock the test moves, a sleeper that moves it, a model bucket on it, and minimal JAX-RS contexts. */
final class Fakes {

    private Fakes() {
    }

    /** Nanoseconds that move only when something sleeps or the test says so. */
    static final class Clock {
        long nanos = 1_000_000_000_000L;
        final List<Duration> sleeps = new ArrayList<>();

        long nanoTime() {
            return nanos;
        }

        Sleeper sleeper() {
            return d -> {
                sleeps.add(d);
                nanos += d.toNanos();
            };
        }
    }

    /**
     * The reference of one shared bucket and its pause on {@link Clock}: a token every
     * {@code perTokenMicros}, at most {@code capacity} at once (the time it is full again), and
     * the end of the pause, never moved earlier, clamped to {@code max-pause}.
     */
    static final class ModelQuota implements Quota {
        final Clock clock;
        final long capacity;
        final long perTokenMicros;
        Outbound outbound;
        long tatMicros;
        long pausedUntilMicros;
        final List<Duration> pauses = new ArrayList<>();

        ModelQuota(Clock clock, long capacity, long perTokenMicros, Outbound outbound) {
            this.clock = clock;
            this.capacity = capacity;
            this.perTokenMicros = perTokenMicros;
            this.outbound = outbound;
        }

        long now() {
            return clock.nanos / 1000;
        }

        @Override
        public long take(String method, String path) {
            long now = now();
            long after = Math.max(tatMicros, now) + perTokenMicros;
            long wait = Math.max(Math.max(0, after - now - capacity * perTokenMicros), pausedUntilMicros - now);
            if (wait <= 0) {
                tatMicros = after;
                return 0;
            }
            return wait;
        }

        @Override
        public Duration pause(Duration pause) {
            pauses.add(pause);
            long clamped = Math.min(pause.toNanos() / 1000, outbound.maxPause().toNanos() / 1000);
            pausedUntilMicros = Math.max(pausedUntilMicros, now() + clamped);
            return Duration.ofNanos((pausedUntilMicros - now()) * 1000);
        }

        @Override
        public Outbound outbound() {
            return outbound;
        }
    }

    static ClientRequestContext request(String method, String uri) {
        return (ClientRequestContext) Proxy.newProxyInstance(Fakes.class.getClassLoader(),
                new Class<?>[] {ClientRequestContext.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "getMethod" -> method;
                    case "getUri" -> URI.create(uri);
                    case "toString" -> method + " " + uri;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    /** An answer with these headers (names case-insensitive; a repeated name joined by ',' as JAX-RS does). */
    static ClientResponseContext response(int status, String... nameValue) {
        Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < nameValue.length; i += 2) {
            headers.merge(nameValue[i], nameValue[i + 1], (a, b) -> a + "," + b);
        }
        return (ClientResponseContext) Proxy.newProxyInstance(Fakes.class.getClassLoader(),
                new Class<?>[] {ClientResponseContext.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "getStatus" -> status;
                    case "getHeaderString" -> headers.get((String) args[0]);
                    case "toString" -> status + " " + headers;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    static TollgateClientFilter filter(ModelQuota quota, Clock clock, long wallMillis) {
        return new TollgateClientFilter("partner", "api.example", quota, clock.sleeper(), clock::nanoTime, () -> wallMillis);
    }
}
