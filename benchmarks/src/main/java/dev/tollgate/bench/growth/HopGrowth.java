package dev.tollgate.bench.growth;

import dev.tollgate.AddressRanges;
import dev.tollgate.ClientAddresses;
import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Finding the client behind 1 to 32 proxy hops (and past the limit of 32): the peer is a trusted
 * proxy ({@code 10.0.0.0/8}), and the forwarding header holds the client (in {@code 203.0.113.0/24}
 * and {@code 198.51.100.0/24}) followed by {@code hops - 1} trusted proxies, so the walk reads
 * {@code hops} elements from the right. Timed: {@link ClientAddresses#client} alone, for
 * {@code X-Forwarded-For} and for {@code Forwarded}, and the whole in-memory
 * {@link RateLimiter#check} with {@code X-Forwarded-For}. All in the same rotation.
 */
final class HopGrowth {

    record Row(int hops, String what, Rotation.Figure figure) {
    }

    private HopGrowth() {
    }

    static List<Row> run(List<Integer> hopCounts, int clients, int warmup, int rounds) {
        AddressRanges trusted = AddressRanges.parse("10.0.0.0/8");
        ClientAddresses xff = new ClientAddresses(trusted, ClientAddresses.Header.X_FORWARDED_FOR, 32, 64);
        ClientAddresses fwd = new ClientAddresses(trusted, ClientAddresses.Header.FORWARDED, 32, 64);
        Map<String, String> values = Configs.base(1);
        values.put("tollgate.trusted-proxies", "10.0.0.0/8");
        RateLimiter limiter = RateLimiter.create(Configs.load(values));
        SplittableRandom random = new SplittableRandom(15);
        List<Supplier<Object>> calls = new ArrayList<>();
        List<Row> shapes = new ArrayList<>();
        try {
            for (int hops : hopCounts) {
                GrowthRequest[] x = new GrowthRequest[clients];
                GrowthRequest[] f = new GrowthRequest[clients];
                for (int c = 0; c < clients; c++) {
                    String client = (c % 2 == 0 ? "203.0.113." : "198.51.100.") + (c / 2 % 256);
                    StringBuilder xs = new StringBuilder(client);
                    StringBuilder fs = new StringBuilder("for=").append(client);
                    for (int h = 1; h < hops; h++) {
                        String proxy = "10." + (c % 200) + "." + h + "." + (h * 7 % 250 + 1);
                        xs.append(", ").append(proxy);
                        fs.append(", for=").append(proxy);
                    }
                    String peer = "10.0.0." + (c % 250 + 1);
                    x[c] = new GrowthRequest("GET", "/api/hello", peer, "X-Forwarded-For", xs.toString());
                    f[c] = new GrowthRequest("GET", "/api/hello", peer, "Forwarded", fs.toString());
                }
                byte[] expected = xff.client(x[0]);
                if (hops <= 32 && !Arrays.equals(expected, new byte[] {(byte) 203, 0, 113, 0})) {
                    throw new IllegalStateException(hops + " hops: the client found is not the client");
                }
                if (!Arrays.equals(expected, fwd.client(f[0]))) {
                    throw new IllegalStateException(hops + " hops: Forwarded and X-Forwarded-For disagree");
                }
                shapes.add(new Row(hops, "X-Forwarded-For, resolver", null));
                calls.add(() -> xff.client(x[random.nextInt(clients)]));
                shapes.add(new Row(hops, "Forwarded, resolver", null));
                calls.add(() -> fwd.client(f[random.nextInt(clients)]));
                shapes.add(new Row(hops, "X-Forwarded-For, whole check", null));
                calls.add(() -> allowed(limiter.check(x[random.nextInt(clients)])));
            }
            Histogram[] h = Rotation.time(calls, warmup, rounds);
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                Row s = shapes.get(i);
                double bytes = Rotation.bytesPerCall(calls.get(i), Math.min(rounds, 100_000));
                rows.add(new Row(s.hops(), s.what(), Rotation.figure(s.hops() + " hops, " + s.what(), h[i], bytes)));
            }
            return rows;
        } finally {
            limiter.close();
        }
    }

    private static Decision allowed(Decision d) {
        if (!d.allowed()) {
            throw new IllegalStateException("expected an admit, got " + d.verdict());
        }
        return d;
    }
}
