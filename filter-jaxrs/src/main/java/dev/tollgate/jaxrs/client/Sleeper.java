package dev.tollgate.jaxrs.client;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** How a call waits for its token: the thread sleeps (parks), never spins. Tests pass their own. */
@FunctionalInterface
interface Sleeper {

    void sleep(Duration d) throws InterruptedException;

    Sleeper THREAD = d -> TimeUnit.NANOSECONDS.sleep(d.toNanos());
}
