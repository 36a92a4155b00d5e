package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Concurrency;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lease whose reply was lost (the script ran, the caller timed out) holds a slot for nobody:
 * with {@code concurrency=1} it refused the client for the whole lease (issue 21). The reclaimer
 * gives it back as soon as the store answers again; time and the executor are the test's.
 */
class LeaseReclaimerTest {

    final ManualClock clock = new ManualClock();
    final FailingStore store = new FailingStore(new LocalStore(1000, clock::nowMicros));
    final List<Runnable> tasks = new ArrayList<>();
    final LeaseReclaimer reclaimer = new LeaseReclaimer(store, () -> clock.nowMicros() * 1000, tasks::add);
    final Limit one = new Concurrency(1, Duration.ofSeconds(60)).limit();
    int ids;

    BucketRequest.Lease slot() {
        return BucketRequest.lease("{c}:p:c", one, true, "L" + (++ids));
    }

    boolean admitted(BucketRequest r) {
        return store.acquire(List.of(r)).get(0).admits();
    }

    void runTasks() {
        List<Runnable> now = new ArrayList<>(tasks);
        tasks.clear();
        now.forEach(Runnable::run);
    }

    @Test
    void aLeaseWhoseReplyWasLostIsGivenBackWhenTheStoreAnswersAgain() {
        BucketRequest lost = slot();
        store.runsThenFailsWith(() -> new IllegalStateException("read timed out"));
        assertThrowsAny(() -> store.acquire(List.of(lost)));
        reclaimer.add(List.of(lost));
        store.answers();
        assertFalse(admitted(slot()), "before: the lost call's lease holds the only slot");
        reclaimer.redisAnswered();
        assertEquals(1, tasks.size(), "given back off the caller's thread");
        runTasks();
        assertEquals(0, reclaimer.waiting());
        assertTrue(admitted(slot()), "after: the slot is free at once, not after the 60 s lease");
    }

    @Test
    void aReleaseThatFailsIsTriedAgainWhenTheStoreAnswers() {
        BucketRequest.Lease held = slot();
        assertTrue(admitted(held));
        store.failsWith(() -> new IllegalStateException("connection reset"));
        reclaimer.release(List.of(held));
        assertEquals(1, reclaimer.waiting());
        store.answers();
        reclaimer.redisAnswered();
        runTasks();
        assertTrue(admitted(slot()));
    }

    @Test
    void leasesThatHaveExpiredAnywayAreDroppedAndNothingIsAskedWhenNoneWait() {
        reclaimer.add(List.of(slot()));
        clock.advance(Duration.ofSeconds(61));
        reclaimer.redisAnswered();
        runTasks();
        assertEquals(0, reclaimer.waiting());
        reclaimer.redisAnswered();
        assertTrue(tasks.isEmpty(), "no task when nothing waits");
    }

    @Test
    void aCallThatNeverRanCostsNothing() {
        BucketRequest never = slot();
        reclaimer.add(List.of(never));
        reclaimer.redisAnswered();
        runTasks(); // releasing a lease that is not there is ignored
        assertTrue(admitted(slot()));
        assertFalse(admitted(slot()), "and the one slot is still counted");
    }

    static void assertThrowsAny(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException expected) {
            return;
        }
        throw new AssertionError("expected a failure");
    }
}
