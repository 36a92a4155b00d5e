package dev.tollgate.faults;

import dev.tollgate.Decision;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The clients, one thread each, every choice drawn from the run's seed: API clients that alternate
 * between nodes, stick to one, hammer without pause, or obey every refusal by calling again at
 * exactly the {@code Retry-After} they were given (in µs, the decision's own); and slot clients
 * that hold a concurrency slot for a random time before giving it back. Each client keys its
 * requests with an API key of its own ({@code X-Api-Key: sk_live_…}), which must never reach a log.
 * Bounded in requests and in time.
 */
final class Workload {

    enum Kind { ALTERNATING, STICKY, HAMMER, OBEYING, SLOTS, QUOTA }

    record Client(int id, Kind kind, String apiKey, long seed) {
    }

    static final int MAX_REQUESTS_PER_CLIENT = 4000;

    final List<Client> clients = new ArrayList<>();
    private final List<Node> nodes;
    private final History history;

    Workload(SplittableRandom random, List<Node> nodes, History history) {
        this.nodes = nodes;
        this.history = history;
        Kind[] kinds = {Kind.ALTERNATING, Kind.ALTERNATING, Kind.ALTERNATING, Kind.STICKY, Kind.STICKY, Kind.HAMMER,
            Kind.OBEYING, Kind.OBEYING, Kind.SLOTS, Kind.SLOTS, Kind.SLOTS, Kind.SLOTS, Kind.QUOTA, Kind.QUOTA};
        for (int i = 0; i < kinds.length; i++) {
            byte[] key = new byte[12];
            random.nextBytes(key);
            clients.add(new Client(i, kinds[i], "sk_live_" + HexFormat.of().formatHex(key), random.nextLong()));
        }
    }

    /** The Redis key of a client's bucket under its policy (readable keys: the client part is the Cluster hash tag). */
    String storageKey(Client c) {
        return "faults:default:{header.x-api-key=" + c.apiKey() + "}:" + switch (c.kind()) {
            case SLOTS -> "slots:c";
            case QUOTA -> "quota:cal";
            default -> "api";
        };
    }

    /** Runs every client until {@code untilMicros} on the history's clock; returns when all have stopped. */
    void run(long untilMicros) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (Client c : clients) {
            Thread t = new Thread(() -> client(c, untilMicros), "client-" + c.id());
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    private void client(Client c, long untilMicros) {
        SplittableRandom random = new SplittableRandom(c.seed());
        int home = c.id() % nodes.size();
        long nextAt = 0; // an obeying client's next call, when refused
        for (int n = 0; n < MAX_REQUESTS_PER_CLIENT && history.now() < untilMicros; n++) {
            int node = switch (c.kind()) {
                case ALTERNATING, HAMMER, SLOTS, QUOTA -> (home + n) % nodes.size();
                case STICKY, OBEYING -> home;
            };
            if (c.kind() == Kind.OBEYING && nextAt > 0) {
                sleepUntil(nextAt);
                nextAt = 0;
            }
            Op op = request(c, node, c.kind() == Kind.SLOTS ? "slots" : c.kind() == Kind.QUOTA ? "quota" : "api");
            if (c.kind() == Kind.SLOTS) {
                if (op.admitted()) {
                    sleepMicros(random.nextLong(400_000));
                    release(op);
                }
                sleepMicros(random.nextLong(100_000));
            } else if (c.kind() == Kind.OBEYING && op.verdict == Decision.Verdict.DENY) {
                op.obeying = true;
                nextAt = op.complete + op.retryAfterMicros; // exactly when the refusal said
            } else if (c.kind() != Kind.HAMMER) {
                sleepMicros(random.nextLong(60_000));
            } else {
                sleepMicros(random.nextLong(5_000));
            }
        }
    }

    private final ThreadLocal<Decision> held = new ThreadLocal<>();
    private final ThreadLocal<int[]> heldEpoch = new ThreadLocal<>();

    /** One request to a node, recorded. */
    Op request(Client c, int nodeIndex, String policy) {
        Node node = nodes.get(nodeIndex);
        TestRequest request = TestRequest.get("/" + policy + "/x").from("192.0.2." + (10 + c.id()))
                .header("X-Api-Key", c.apiKey());
        Op op = new Op(c.id(), nodeIndex, policy, history.now());
        int epoch = node.epoch();
        try {
            Decision d = node.check(request);
            op.complete = history.now();
            op.verdict = d.verdict();
            op.source = d.source();
            op.retryAfterMicros = d.retryAfterMicros();
            if (d.permit().held()) {
                held.set(d);
                heldEpoch.set(new int[] {epoch});
            }
        } catch (RuntimeException e) {
            op.complete = history.now();
            op.error = e.getClass().getSimpleName();
        }
        history.add(op);
        return op;
    }

    /** Gives back the slot of {@code op}, unless its node died since: a dead process releases nothing. */
    void release(Op op) {
        Decision d = held.get();
        if (d == null) {
            op.releaseInvoke = history.now(); // admitted without a slot (the failure mode stepped aside)
            return;
        }
        held.remove();
        Node node = nodes.get(op.node);
        if (node.epoch() == heldEpoch.get()[0] && !node.dead()) {
            op.releaseInvoke = history.now();
            node.release(d, heldEpoch.get()[0]);
        }
    }

    private void sleepUntil(long atMicros) {
        long wait = atMicros - history.now();
        if (wait > 0) {
            sleepMicros(wait);
        }
        while (history.now() < atMicros) {
            Thread.onSpinWait(); // the last few µs: the call must not come before the retry time
        }
    }

    static void sleepMicros(long micros) {
        try {
            TimeUnit.MICROSECONDS.sleep(micros);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
