package dev.tollgate.bench.decision;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * Throughput at many threads, interleaved: the same worker threads run one contender at a time in
 * short slices, contender after contender, round after round, so that a change in background load
 * on the shared machine touches every contender alike. Each contender's figure is the median of
 * its slices; min and max show the spread. Complements JMH, whose forks run one after another.
 */
final class InterleavedThroughput {

    /** A contender over 10,000 clients (busy = false) or one busy client. */
    record Figure(String name, boolean busy, double median, double min, double max, int slices) {
    }

    private InterleavedThroughput() {
    }

    static List<Figure> run(int threads, long sliceMillis, int rounds) throws InterruptedException {
        try (Contenders contenders = new Contenders()) {
            Map<String, IntConsumer> calls = contenders.calls();
            List<String> names = new ArrayList<>();
            List<Boolean> busy = new ArrayList<>();
            List<IntConsumer> fns = new ArrayList<>();
            for (String n : List.of("ping", "evalshaTrivial", "tollgateCheck", "tollgateUnpipelined", "bucket4j",
                    "article")) {
                names.add(n);
                busy.add(false);
                fns.add(calls.get(n));
            }
            for (String n : List.of("tollgateCheck", "bucket4j", "article")) {
                names.add(n);
                busy.add(true);
                fns.add(calls.get(n));
            }
            int count = fns.size();
            LongAdder[] done = new LongAdder[count];
            for (int i = 0; i < count; i++) {
                done[i] = new LongAdder();
            }
            AtomicInteger current = new AtomicInteger(-1); // -2: stop
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (true) {
                        int c = current.get();
                        if (c == -2) {
                            return;
                        }
                        if (c < 0) {
                            LockSupport.parkNanos(1_000_000);
                            continue;
                        }
                        int k = busy.get(c) ? Contenders.KEYS : random.nextInt(Contenders.KEYS);
                        try {
                            fns.get(c).accept(k);
                            done[c].increment();
                        } catch (RuntimeException e) {
                            // counted as not done; a pool or Redis error shows as a lower figure
                        }
                    }
                }, "interleaved-" + t);
                w.setDaemon(true);
                w.start();
                workers.add(w);
            }
            double[][] rates = new double[count][rounds];
            for (int round = -1; round < rounds; round++) { // round -1 warms up
                for (int j = 0; j < count; j++) {
                    int c = (j + Math.max(round, 0)) % count;
                    long before = done[c].sum();
                    long t0 = System.nanoTime();
                    current.set(c);
                    Thread.sleep(sliceMillis);
                    long ops = done[c].sum() - before;
                    double secs = (System.nanoTime() - t0) / 1e9;
                    if (round >= 0) {
                        rates[c][round] = ops / secs;
                    }
                }
            }
            current.set(-2);
            for (Thread w : workers) {
                w.join(15_000);
            }
            if (contenders.fallbacks.sum() > 0) {
                System.out.println("[bench] warning: " + contenders.fallbacks.sum()
                        + " Tollgate decisions fell back to memory during the interleaved run");
            }
            List<Figure> out = new ArrayList<>();
            for (int c = 0; c < count; c++) {
                double[] r = rates[c].clone();
                Arrays.sort(r);
                out.add(new Figure(names.get(c), busy.get(c), r[r.length / 2], r[0], r[r.length - 1], r.length));
            }
            return out;
        }
    }
}
