package dev.tollgate.internal.bucket;

import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;

/** The calendar contract on the in-memory store. */
class LocalStoreCalendarTest extends CalendarStoreContract {

    @Override
    protected BucketStore store(ManualClock clock) {
        return new LocalStore(100_000, clock::nowMicros);
    }
}
