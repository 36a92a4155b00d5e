package dev.tollgate.bench.engine;

import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.local.MicroClock;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What {@link LocalStore#follow} adds to each Redis decision of a {@code local} policy, against
 * {@link LocalStore#acquire} on the same keys in the same run: time and bytes per call from the
 * thread's clock and allocation counter, in rounds of 1,000,000 calls each, the two alternating.
 * The replies are made once, in advance, by a second store playing the shared one; every call
 * takes (the shared store admitted), so the followed buckets stay stored.
 *
 * <p>Arguments: the limit (default {@code 1/s burst 1000000000}, as {@link EngineBench}), the
 * number of clients (default 10,000). Run on the module's class path, like {@link AllocationSites}.
 */
public final class FollowCost {

    private FollowCost() {
    }

    public static void main(String[] args) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        List<Limit> limits = Limit.parse(args.length > 0 ? args[0] : "1/s burst 1000000000");
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        LocalStore shared = new LocalStore(100_000, MicroClock.SYSTEM);
        LocalStore fallback = new LocalStore(100_000, MicroClock.SYSTEM);
        BucketRequest[] requests = new BucketRequest[clients];
        List<BucketRequest>[] calls = newLists(clients);
        BucketReply[] replies = new BucketReply[clients];
        for (int i = 0; i < clients; i++) {
            requests[i] = BucketRequest.take("tollgate:{ip=10.0." + (i / 250) + "." + (i % 250) + "}:default", limits, 1, true);
            calls[i] = List.of(requests[i]);
            replies[i] = shared.acquire(calls[i]).get(0);
        }
        SplittableRandom random = new SplittableRandom(1);
        long sink = 0;
        int n = 1_000_000;
        for (int round = 0; round < 5; round++) {
            long b0 = mx.getCurrentThreadAllocatedBytes();
            long t0 = System.nanoTime();
            for (int k = 0; k < n; k++) {
                int i = random.nextInt(clients);
                fallback.follow(requests[i], replies[i], true);
            }
            long t1 = System.nanoTime();
            long b1 = mx.getCurrentThreadAllocatedBytes();
            for (int k = 0; k < n; k++) {
                sink += fallback.acquire(calls[random.nextInt(clients)]).size();
            }
            long t2 = System.nanoTime();
            long b2 = mx.getCurrentThreadAllocatedBytes();
            System.out.printf("round %d: follow %.0f ns, %.1f B | acquire %.0f ns, %.1f B | follow / acquire, time %.2fx%n",
                    round, (t1 - t0) / (double) n, (b1 - b0) / (double) n, (t2 - t1) / (double) n,
                    (b2 - b1) / (double) n, (t1 - t0) / (double) (t2 - t1));
        }
        if (sink == 0) {
            System.out.println("no call answered");
        }
    }

    @SuppressWarnings("unchecked")
    private static List<BucketRequest>[] newLists(int n) {
        return new List[n];
    }
}
