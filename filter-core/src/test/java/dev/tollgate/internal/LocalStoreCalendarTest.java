package dev.tollgate.internal;

import dev.tollgate.spi.BucketStore;
import dev.tollgate.testing.ManualClock;

/** The calendar contract on the in-memory store. */
class LocalStoreCalendarTest extends CalendarStoreContract {

    @Override
    BucketStore store(ManualClock clock) {
        return new LocalStore(100_000, clock::nowMicros);
    }
}
