package dev.tollgate.bench.leasing;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.bench.Clients;
import dev.tollgate.bench.Options;
import dev.tollgate.bench.RedisServer;
import dev.tollgate.bench.report.Machine;
import dev.tollgate.bench.report.Table;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Token leasing on one hot key, in one run against one Redis, each measurement interleaved slice
 * by slice between a limiter that calls Redis per request and one that prefetches (so background
 * load on the shared machine touches both alike; figures are medians of the slices):
 * <ol>
 *   <li>throughput: {@code threads} threads as fast as they can on one key allowed far more than
 *       they send (every request admitted);</li>
 *   <li>paced: the same threads sending {@code rate} requests/s in total on one key allowed 25% more:
 *       Redis calls per decision (the limiter's count and Redis' own {@code INFO commandstats}) and
 *       latency from each request's scheduled time;</li>
 *   <li>over the limit: as fast as they can on one key allowed {@code rate}/s burst 1,000: what was
 *       admitted against the bound {@code C + r·t + nodes·k} over the whole phase.</li>
 * </ol>
 * Writes {@code leasing.md} under {@code target/bench/leasing/}.
 */
public final class LeasingRun {

    private LeasingRun() {
    }

    /** A limiter under test and what it did in each slice of the current phase. */
    private static final class Contender {
        final String name;
        final RateLimiter limiter;
        final RequestView request;
        final LongAdder decisions = new LongAdder();
        final LongAdder admitted = new LongAdder();
        /** Admitted since the phase began, warm-up included: what the bound is checked on. */
        final LongAdder admittedInPhase = new LongAdder();
        final LongAdder leased = new LongAdder();
        final Histogram latency = new ConcurrentHistogram(3_600_000_000L, 3);
        final List<Double> rates = new ArrayList<>();
        long calls;
        long redisCommands;

        Contender(String name, RateLimiter limiter, String address) {
            this.name = name;
            this.limiter = limiter;
            this.request = Clients.request(address);
        }

        void reset() {
            decisions.reset();
            admitted.reset();
            leased.reset();
            latency.reset();
            rates.clear();
            calls = 0;
            redisCommands = 0;
        }

        double median() {
            double[] r = rates.stream().mapToDouble(Double::doubleValue).toArray();
            Arrays.sort(r);
            return r.length == 0 ? Double.NaN : r[r.length / 2];
        }
    }

    /** Held so the level sticks: a refusal per second per key logged is noise here. */
    private static final java.util.logging.Logger DECISION_LOG = java.util.logging.Logger.getLogger("dev.tollgate.decision");

    public static void run(Path out, Options o) throws Exception {
        DECISION_LOG.setLevel(java.util.logging.Level.WARNING);
        boolean quick = o.quick();
        int threads = o.integer("threads", 64);
        int rate = o.integer("rate", 20_000);
        int prefetch = o.integer("prefetch", 100);
        String hold = o.get("hold", "200ms");
        long sliceMillis = o.duration("slice", Duration.ofMillis(quick ? 500 : 2_000)).toMillis();
        int rounds = o.integer("rounds", quick ? 3 : 5);
        Files.createDirectories(out);
        try (RedisServer redis = RedisServer.start(out.resolve("redis"))) {
            String machine = Machine.markdown(Machine.describe(redis.version()));
            StringBuilder md = new StringBuilder("# Token leasing on one hot key (" + LocalDate.now() + ")\n\n")
                    .append(machine).append("\n").append("threads ").append(threads).append(", rate ").append(rate)
                    .append("/s, prefetch ").append(prefetch).append(", hold ").append(hold).append(", slices of ")
                    .append(sliceMillis).append(" ms, ").append(rounds).append(" rounds, interleaved\n\n");

            String roomy = "1000000/s burst 1000000";
            List<Contender> open = new ArrayList<>(contenders(redis, roomy, prefetch, hold, "192.0.2.1"));
            // the engine alone, no Redis: the ceiling leasing approaches when it never waits
            open.add(new Contender("in memory (no Redis)", RateLimiter.create(config(null, roomy, 0, hold)), "192.0.2.13"));
            phase(open, threads, 0, sliceMillis, rounds, redis);
            Table t1 = new Table("limiter", "decisions/s (median)", "min", "max", "Redis calls per decision", "answered from a lease");
            for (Contender c : open) {
                t1.row(c.name, Table.num(c.median()), Table.num(min(c)), Table.num(max(c)),
                        String.format("%.4f", c.calls / (double) c.decisions.sum()),
                        String.format("%.1f%%", 100.0 * c.leased.sum() / c.decisions.sum()));
            }
            double ratio = open.get(1).median() / open.get(0).median();
            md.append("## Throughput: ").append(threads).append(" threads, one key, every request admitted (")
                    .append(roomy).append(")\n\n").append(t1.markdown()).append("\nleasing / per request: ")
                    .append(Table.ratio(ratio)).append("; leasing / in memory: ")
                    .append(Table.ratio(open.get(1).median() / open.get(2).median())).append("\n\n");
            close(open);

            String paced = (rate + rate / 4) + "/s burst " + Math.max(prefetch, rate / 10);
            List<Contender> steady = contenders(redis, paced, prefetch, hold, "192.0.2.2");
            phase(steady, threads, rate, sliceMillis, rounds, redis);
            Table t2 = new Table("limiter", "decisions/s (median)", "Redis calls per decision (limiter)",
                    "EVALSHA per decision (Redis INFO)", "latency P50 µs", "P99 µs", "P99.9 µs", "admitted");
            for (Contender c : steady) {
                long n = c.decisions.sum();
                t2.row(c.name, Table.num(c.median()), String.format("%.4f", c.calls / (double) n),
                        String.format("%.4f", c.redisCommands / (double) n),
                        Table.num(c.latency.getValueAtPercentile(50) / 1000.0),
                        Table.num(c.latency.getValueAtPercentile(99) / 1000.0),
                        Table.num(c.latency.getValueAtPercentile(99.9) / 1000.0),
                        String.format("%.2f%%", 100.0 * c.admitted.sum() / n));
            }
            md.append("## Paced: ").append(rate).append(" requests/s from ").append(threads)
                    .append(" threads on one key allowed ").append(paced).append("\n\n").append(t2.markdown()).append("\n");
            close(steady);

            String tight = rate + "/s burst 1000";
            Table t3 = new Table("limiter", "seconds", "decisions", "admitted", "bound C + r·t + nodes·k", "held",
                    "Redis calls per decision");
            for (int k : new int[] {0, prefetch}) {
                // alone, not interleaved: t is this limiter's own time on its key, so the bound is tight
                Contender c = new Contender(k == 0 ? "per request" : "leasing",
                        RateLimiter.create(config(redis, tight, k, hold)), "192.0.2.3" + (k == 0 ? 1 : 2));
                long start = System.nanoTime();
                phase(List.of(c), threads, 0, sliceMillis * 2, rounds, redis);
                double seconds = (System.nanoTime() - start) / 1e9;
                long admitted = c.admittedInPhase.sum();
                long bound = 1000 + (long) Math.floor(rate * seconds) + k;
                t3.row(c.name, String.format("%.2f", seconds), Long.toString(c.decisions.sum()), Long.toString(admitted),
                        Long.toString(bound), admitted <= bound ? "yes" : "NO",
                        String.format("%.4f", c.calls / (double) c.decisions.sum()));
                close(List.of(c));
            }
            md.append("## Over the limit: ").append(threads).append(" threads as fast as they can on one key allowed ")
                    .append(tight).append(", each limiter alone on its own key (t from before its first request to after")
                    .append(" its last; admitted counts the warm-up too; decisions and calls do not)\n\n")
                    .append(t3.markdown()).append("\n");

            Files.writeString(out.resolve("leasing.md"), md.toString(), StandardCharsets.UTF_8);
            System.out.println(md);
            System.out.println("[bench] wrote " + out.resolve("leasing.md"));
        }
    }

    private static double min(Contender c) {
        return c.rates.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(Contender c) {
        return c.rates.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static List<Contender> contenders(RedisServer redis, String limits, int prefetch, String hold, String address) {
        return List.of(new Contender("per request", RateLimiter.create(config(redis, limits, 0, hold)), address + "1"),
                new Contender("leasing", RateLimiter.create(config(redis, limits, prefetch, hold)), address + "2"));
    }

    private static TollgateConfig config(RedisServer redis, String limits, int prefetch, String hold) {
        Map<String, String> values = new HashMap<>();
        if (redis != null) {
            values.put("tollgate.redis.uri", redis.uri());
            values.put("tollgate.redis.timeout", "1s");
        }
        values.put("tollgate.metrics", "none");
        values.put("tollgate.jmx", "false");
        values.put("tollgate.policy.default.limits", limits);
        if (prefetch > 0) {
            values.put("tollgate.policy.default.prefetch", Integer.toString(prefetch));
            values.put("tollgate.policy.default.prefetch-hold", hold);
        }
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("benchmark", values)), LeasingRun.class.getClassLoader());
    }

    private static void close(List<Contender> cs) {
        for (Contender c : cs) {
            c.limiter.close();
        }
    }

    /**
     * Runs slices of each contender in turn, one warm-up round first; {@code rate} 0: as fast as
     * the threads can, else that many requests per second in total, each thread on its own schedule.
     */
    private static void phase(List<Contender> cs, int threads, int rate, long sliceMillis, int rounds, RedisServer redis)
            throws InterruptedException {
        AtomicInteger current = new AtomicInteger(-1); // -2: stop
        AtomicInteger generation = new AtomicInteger();
        long periodNanos = rate == 0 ? 0 : (long) (threads * 1e9 / rate);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long offset = rate == 0 ? 0 : periodNanos * t / threads;
            Thread w = new Thread(() -> {
                int seen = -1;
                long next = 0;
                while (true) {
                    int c = current.get();
                    if (c == -2) {
                        return;
                    }
                    if (c < 0) {
                        LockSupport.parkNanos(1_000_000);
                        continue;
                    }
                    int g = generation.get();
                    if (g != seen) { // a new slice: a fresh schedule
                        seen = g;
                        next = System.nanoTime() + offset;
                    }
                    long scheduled = System.nanoTime();
                    if (rate > 0) {
                        long wait = next - scheduled;
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        scheduled = next; // latency counts from the intended time, not the late start
                        next += periodNanos;
                    }
                    Contender k = cs.get(c);
                    Decision d = k.limiter.check(k.request);
                    if (d.allowed()) {
                        k.admittedInPhase.increment(); // before the slice check: every admission counts for the bound
                    }
                    if (current.get() != c) {
                        continue; // finished after its slice ended: counted in no slice
                    }
                    k.decisions.increment();
                    if (d.allowed()) {
                        k.admitted.increment();
                    }
                    if (d.source() == Decision.Source.LEASE) {
                        k.leased.increment();
                    }
                    if (rate > 0) {
                        k.latency.recordValue(Math.max(0, System.nanoTime() - scheduled));
                    }
                }
            }, "leasing-" + t);
            w.setDaemon(true);
            w.start();
            workers.add(w);
        }
        for (int round = -1; round < rounds; round++) { // round -1 warms up
            for (int j = 0; j < cs.size(); j++) {
                int c = (j + Math.max(round, 0)) % cs.size();
                Contender k = cs.get(c);
                if (round == 0 && j == 0) {
                    for (Contender each : cs) {
                        each.reset(); // the warm-up counts nowhere
                    }
                }
                long decisionsBefore = k.decisions.sum();
                long callsBefore = k.limiter.redisCalls();
                long commandsBefore = evalshaCalls(redis);
                long t0 = System.nanoTime();
                generation.incrementAndGet();
                current.set(c);
                Thread.sleep(sliceMillis);
                current.set(-1);
                double secs = (System.nanoTime() - t0) / 1e9;
                LockSupport.parkNanos(20_000_000); // let decisions of the slice end before Redis is counted
                k.calls += k.limiter.redisCalls() - callsBefore;
                k.redisCommands += evalshaCalls(redis) - commandsBefore;
                if (round >= 0) {
                    k.rates.add((k.decisions.sum() - decisionsBefore) / secs);
                }
            }
        }
        current.set(-2);
        for (Thread w : workers) {
            w.join(15_000);
        }
    }

    /** EVALSHA calls Redis has run so far (its own count, {@code INFO commandstats}). */
    private static long evalshaCalls(RedisServer redis) {
        for (String line : redis.cli("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return 0;
    }
}
