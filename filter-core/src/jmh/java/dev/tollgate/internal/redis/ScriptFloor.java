package dev.tollgate.internal.redis;

import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Tollgate's script against its floor (issue 15): {@code redis-benchmark -c 1}, one command at a
 * time from C, for PING, {@code return 1}, the least script with state (TIME, GET, SET and nothing
 * else, given the same arguments as Tollgate's) and {@code bucket.lua} with the arguments of the
 * common case, allowed over 10,000 keys, allowed on buckets that exist, and refused on one busy
 * key. Each round runs every contender once, in an order that rotates from round to round; the
 * figures are medians over the rounds, and the ratios are medians of each round's own ratios.
 *
 * <p>Per contender and round: the median latency as {@code redis-benchmark} reports it (its
 * histogram counts in steps of 8 µs below 256 µs, so a P50 of 31 and one of 39 may be 1 µs apart),
 * the mean latency (10^6 / requests per second: exact, but a stall of the machine weighs in it),
 * and {@code usec_per_call} of {@code EVALSHA} from {@code INFO commandstats} (the time inside
 * Redis, the commands the script calls included).
 *
 * <p>Then the same commands from this JVM, interleaved call by call ({@link ScriptFloorCalls};
 * {@code calls=0} leaves it out): a finer median, and every contender under the same load.
 *
 * <p>{@code compare=<file>} adds the same three Tollgate contenders for another version of the
 * script (e.g. {@code git show <commit>:filter-core/src/main/resources/dev/tollgate/internal/redis/bucket.lua}),
 * so a before and an after are measured in one run. That version is given the general form of the
 * arguments (every version reads it); this one the form RedisStore sends, the short form for these
 * limits. The floor is measured twice, given each form (and answering as many numbers as
 * Tollgate's script does in it): Redis' work per argument is the floor's as much as Tollgate's,
 * so each contender is also read against the floor of its own form ("vs its floor").
 *
 * <p>A main of filter-core's {@code jmh} set (formerly the benchmarks module's {@code floor}), beside
 * the script and the store that sends it; arguments are words {@code key=value}: {@code quick},
 * {@code rounds=9}, {@code requests=20000}, {@code calls=20000}, {@code compare=<file>}. It starts
 * its own {@code redis-server} as the tests do and needs {@code redis-benchmark} on the {@code PATH};
 * it writes {@code floor-results.md} and {@code .csv} under {@code filter-core/target/bench/floor/}:
 * <pre>
 * mvn -o -pl filter-core -Pjmh test-compile exec:exec -Djmh.main=dev.tollgate.internal.redis.ScriptFloor -Djmh.args="quick"
 * </pre>
 */
public final class ScriptFloor {

    /** The least a script with state does: read the clock, read the key, write it with an expiry. */
    static final String FLOOR_SCRIPT = "local t = redis.call('TIME') local v = redis.call('GET', KEYS[1])"
            + " redis.call('SET', KEYS[1], t[1], 'PX', 100) return {0, 0, 0, 0, 0}";
    /** The same, answering as many numbers as bucket.lua's short form does when it admits. */
    static final String FLOOR_SHORT_SCRIPT = "local t = redis.call('TIME') local v = redis.call('GET', KEYS[1])"
            + " redis.call('SET', KEYS[1], t[1], 'PX', 100) return {0, 0}";

    private static final String PING = "PING";
    private static final String FLOOR = "floor: TIME, GET, SET";
    private static final String FLOOR_SHORT = "floor: TIME, GET, SET, short form's ARGV";
    private static final Pattern EVALSHA_STATS = Pattern.compile("cmdstat_evalsha:calls=(\\d+),usec=(\\d+),usec_per_call=([\\d.]+)");

    private ScriptFloor() {
    }

    /** One contender: a command for redis-benchmark, over a key space (0: the command as is), and the floor of its ARGV. */
    private record Contender(String name, int keyspace, String[] command, String floor) {

        Contender(String name, int keyspace, String[] command) {
            this(name, keyspace, command, FLOOR);
        }
    }

    /** What one run of one contender gave. */
    private record Sample(double p50Micros, double meanMicros, double usecPerCall) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            options.put(eq < 0 ? a : a.substring(0, eq), eq < 0 ? "true" : a.substring(eq + 1));
        }
        boolean quick = options.containsKey("quick");
        int rounds = Integer.parseInt(options.getOrDefault("rounds", quick ? "3" : "9"));
        int requests = Integer.parseInt(options.getOrDefault("requests", quick ? "5000" : "20000"));
        String compare = options.get("compare");
        Path out = Path.of("bench", "floor").toAbsolutePath();
        Files.createDirectories(out);
        Path benchmark = onPath("redis-benchmark");
        if (benchmark == null) {
            throw new IllegalStateException("no redis-benchmark on the PATH (Debian: apt-get install redis-tools)");
        }
        try (RedisProcess redis = TestRedis.startProcess()) {
            String version = info(redis, "server", "redis_version");
            System.out.println("[bench] Redis " + version + " on 127.0.0.1:" + redis.port() + "; " + rounds
                    + " rounds of " + requests + " requests per contender, one connection");
            List<Contender> contenders = new ArrayList<>();
            contenders.add(new Contender(PING, 0, new String[] {"PING"}));
            contenders.add(new Contender("`return 1`", 0, new String[] {"EVALSHA", load(redis, "return 1"), "0"}));
            String[] common = arguments("10/s burst 20", false);
            contenders.add(new Contender(FLOOR, 10_000, evalsha(load(redis, FLOOR_SCRIPT), "tollgate:{ip=__rand_int__}:default", common)));
            contenders.add(new Contender(FLOOR_SHORT, 10_000, evalsha(load(redis, FLOOR_SHORT_SCRIPT),
                    "tollgate:{ip=__rand_int__}:default", arguments("10/s burst 20", true)), FLOOR_SHORT));
            addTollgate(contenders, "bucket.lua", load(redis, RedisStore.SCRIPT), true);
            if (compare != null) {
                String text = Files.readString(Path.of(compare), StandardCharsets.UTF_8);
                addTollgate(contenders, "bucket.lua of " + Path.of(compare).getFileName(), load(redis, text), false);
            }

            Map<String, List<Sample>> samples = new LinkedHashMap<>();
            for (Contender c : contenders) {
                samples.put(c.name(), new ArrayList<>());
            }
            double[] load = new double[rounds + 1];
            load[0] = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < contenders.size(); i++) {
                    Contender c = contenders.get((i + r) % contenders.size());
                    redis.command("CONFIG", "RESETSTAT");
                    double[] result = redisBenchmark(benchmark, redis, requests, c.keyspace(), c.command());
                    Matcher m = EVALSHA_STATS.matcher(redis.command("INFO", "commandstats"));
                    double usec = m.find() ? Double.parseDouble(m.group(3)) : Double.NaN;
                    samples.get(c.name()).add(new Sample(result[1], 1e6 / result[0], usec));
                }
                load[r + 1] = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                System.out.printf("[bench] round %d of %d done, load average %.2f%n", r + 1, rounds, load[r + 1]);
            }
            Histogram[] calls = null;
            int callRounds = Integer.parseInt(options.getOrDefault("calls", quick ? "3000" : "20000"));
            List<ScriptFloorCalls.Commands> commands = new ArrayList<>();
            if (callRounds > 0) {
                for (Contender c : contenders) {
                    commands.add(ScriptFloorCalls.Commands.of(c.name(), c.keyspace(), c.command()));
                }
                System.out.println("[bench] " + callRounds + " rounds of one call per contender, interleaved, from this JVM");
                calls = ScriptFloorCalls.run(redis.host(), redis.port(), commands, callRounds / 4, callRounds);
            }
            double loadAfterCalls = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            write(out, version, rounds, requests, compare, samples, load, contenders, calls, callRounds, loadAfterCalls);
        }
    }

    /** Allowed over 10,000 keys, allowed on a bucket that exists, refused on one busy key. */
    private static void addTollgate(List<Contender> contenders, String label, String sha, boolean shortForm) {
        String[] common = arguments("10/s burst 20", shortForm);
        String floor = shortForm ? FLOOR_SHORT : FLOOR;
        contenders.add(new Contender(label + ", allowed (10,000 keys, new buckets)", 10_000,
                evalsha(sha, "tollgate:{ip=__rand_int__}:default", common), floor));
        // 1/s with a burst of 10^9: every call is admitted and leaves a debt of 1 s, so the bucket
        // is there at the next call for that key
        contenders.add(new Contender(label + ", allowed (10,000 keys, existing buckets)", 10_000,
                evalsha(sha, "tollgate:{ip=__rand_int__}:kept", arguments("1/s burst 1000000000", shortForm)), floor));
        contenders.add(new Contender(label + ", refused (one busy key)", 0,
                evalsha(sha, "tollgate:{ip=192.0.2.1}:default", common), floor));
    }

    /**
     * ARGV for one enforcing token bucket: the short form as RedisStore sends it (Redis' clock), or
     * the general form (Redis' clock, decide and take, the bucket's own), which every version reads.
     */
    private static String[] arguments(String limit, boolean shortForm) {
        BucketRequest bucket = BucketRequest.take("unused", Limit.parse(limit), 1, true);
        List<String> args = new ArrayList<>();
        if (shortForm) {
            List<String> s = RedisStore.shortArguments(bucket);
            if (s == null) {
                throw new IllegalArgumentException("the short form does not serve " + limit);
            }
            args.addAll(s);
        } else {
            args.addAll(List.of("", ""));
            args.addAll(RedisStore.bucketArguments(bucket));
        }
        return args.toArray(new String[0]);
    }

    private static String[] evalsha(String sha, String key, String[] argv) {
        String[] c = new String[4 + argv.length];
        c[0] = "EVALSHA";
        c[1] = sha;
        c[2] = "1";
        c[3] = key;
        System.arraycopy(argv, 0, c, 4, argv.length);
        return c;
    }

    private static String load(RedisProcess redis, String script) {
        String sha = redis.command("SCRIPT", "LOAD", script).trim();
        if (!sha.matches("[0-9a-f]{40}")) {
            throw new IllegalStateException("SCRIPT LOAD answered " + sha);
        }
        return sha;
    }

    /** A field of {@code INFO section}. */
    private static String info(RedisProcess redis, String section, String field) {
        for (String line : redis.command("INFO", section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "unknown";
    }

    private static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * {@code redis-benchmark -c 1}: requests per second and the median latency in µs.
     *
     * @param keyspace when above 0, {@code __rand_int__} in the command is replaced by a random
     *                 number below it
     */
    private static double[] redisBenchmark(Path binary, RedisProcess redis, int requests, int keyspace, String... command)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "-h", redis.host(), "-p", Integer.toString(redis.port()),
                "-c", "1", "-n", Integer.toString(requests), "--csv"));
        if (keyspace > 0) {
            cmd.add("-r");
            cmd.add(Integer.toString(keyspace));
        }
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        for (String line : out.split("\r?\n")) {
            if (line.startsWith("\"test\"") || !line.startsWith("\"")) {
                continue;
            }
            String[] cells = line.split("\",\"");
            if (cells.length >= 2) {
                try {
                    double p50 = cells.length >= 5 ? Double.parseDouble(cells[4].replace("\"", "")) * 1000 : Double.NaN;
                    return new double[] {Double.parseDouble(cells[1].replace("\"", "")), p50};
                } catch (NumberFormatException e) {
                    // try the next line
                }
            }
        }
        throw new IllegalStateException("redis-benchmark gave no figure for " + String.join(" ", command) + ":\n" + out);
    }

    private static void write(Path out, String version, int rounds, int requests, String compare,
                              Map<String, List<Sample>> samples, double[] load, List<Contender> contenders,
                              Histogram[] calls, int callRounds, double loadAfterCalls) throws IOException {
        List<Sample> ping = samples.get(PING);
        List<Sample> floor = samples.get(FLOOR);
        Table t = new Table("command (one connection)", "P50 µs", "mean µs", "mean vs PING", "mean vs floor",
                "mean vs its floor", "P50 vs floor", "in Redis, µs per call", "in Redis vs floor", "in Redis vs its floor");
        for (Contender c : contenders) {
            List<Sample> s = samples.get(c.name());
            List<Sample> own = samples.get(c.floor());
            boolean script = !c.name().equals(PING);
            t.row(c.name(), Table.num(median(s, Sample::p50Micros)), Table.num(median(s, Sample::meanMicros)),
                    Table.ratio(medianRatio(s, ping, Sample::meanMicros)),
                    Table.ratio(medianRatio(s, floor, Sample::meanMicros)),
                    Table.ratio(medianRatio(s, own, Sample::meanMicros)),
                    Table.ratio(medianRatio(s, floor, Sample::p50Micros)),
                    script ? Table.num(median(s, Sample::usecPerCall)) : "",
                    script ? Table.ratio(medianRatio(s, floor, Sample::usecPerCall)) : "",
                    script ? Table.ratio(medianRatio(s, own, Sample::usecPerCall)) : "");
        }
        StringBuilder loads = new StringBuilder();
        for (double l : load) {
            loads.append(loads.length() == 0 ? "" : ", ").append(String.format("%.2f", l));
        }
        StringBuilder md = new StringBuilder("# Tollgate's script against its floor (issue 15)\n\n")
                .append("Redis ").append(version).append(", Java ").append(System.getProperty("java.version")).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" processors.\n\n")
                .append("`redis-benchmark -c 1 -n ").append(requests).append("`, ").append(rounds)
                .append(" rounds, every contender once per round in a rotating order; medians over the rounds,"
                        + " ratios the medians of each round's ratios. Load average at the start and after each round: ")
                .append(loads).append(".\n")
                .append(compare == null ? "" : "Compared script: `" + Path.of(compare).getFileName() + "`.\n")
                .append("\nP50 is redis-benchmark's (steps of 8 µs here); mean is 10^6 / requests per second;"
                        + " in Redis is `usec_per_call` of EVALSHA (`INFO commandstats`).\n\n")
                .append(t.markdown()).append('\n');
        StringBuilder csv = new StringBuilder(t.csv());
        if (calls != null) {
            Table c = new Table("command (one connection, interleaved call by call)", "P50 µs", "P90 µs", "P99 µs",
                    "mean µs", "P50 vs PING", "P50 vs floor", "P50 vs its floor", "mean vs floor");
            int pingAt = indexOf(contenders, PING);
            int floorAt = indexOf(contenders, FLOOR);
            for (int i = 0; i < contenders.size(); i++) {
                Histogram h = calls[i];
                c.row(contenders.get(i).name(), Table.num(micros(h, 50)), Table.num(micros(h, 90)), Table.num(micros(h, 99)),
                        Table.num(h.getMean() / 1000), Table.ratio(micros(h, 50) / micros(calls[pingAt], 50)),
                        Table.ratio(micros(h, 50) / micros(calls[floorAt], 50)),
                        Table.ratio(micros(h, 50) / micros(calls[indexOf(contenders, contenders.get(i).floor())], 50)),
                        Table.ratio(h.getMean() / calls[floorAt].getMean()));
            }
            md.append("\n## The same commands from this JVM, one call of each in turn\n\n")
                    .append(callRounds).append(" rounds (after ").append(callRounds / 4)
                    .append(" of warm-up) of one call per contender on one connection, the order rotating each round;"
                            + " timed with System.nanoTime, HdrHistogram with 3 significant digits. Load average after: ")
                    .append(String.format("%.2f", loadAfterCalls)).append(".\n\n")
                    .append(c.markdown()).append('\n');
            csv.append('\n').append(c.csv());
        }
        Files.writeString(out.resolve("floor-results.md"), md.toString());
        Files.writeString(out.resolve("floor-results.csv"), csv.toString());
        System.out.println();
        System.out.println(md);
        System.out.println("[bench] written to " + out);
    }

    private static int indexOf(List<Contender> contenders, String name) {
        for (int i = 0; i < contenders.size(); i++) {
            if (contenders.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static double micros(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static double median(List<Sample> s, java.util.function.ToDoubleFunction<Sample> f) {
        double[] v = new double[s.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = f.applyAsDouble(s.get(i));
        }
        return median(v);
    }

    private static double medianRatio(List<Sample> s, List<Sample> base, java.util.function.ToDoubleFunction<Sample> f) {
        double[] v = new double[s.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = f.applyAsDouble(s.get(i)) / f.applyAsDouble(base.get(i));
        }
        return median(v);
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        int n = c.length;
        return n % 2 == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    }
}
