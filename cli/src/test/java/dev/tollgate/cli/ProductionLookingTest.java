package dev.tollgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** What the tool takes for a production Redis, on which a reset needs {@code --yes}. */
class ProductionLookingTest {

    @Test
    void loopbackWithoutTlsIsNotProduction() {
        assertNull(TollgateCli.productionLooking("redis://localhost:6379"));
        assertNull(TollgateCli.productionLooking("redis://127.0.0.1:6379"));
        assertNull(TollgateCli.productionLooking("redis://127.8.9.10:6379"));
        assertNull(TollgateCli.productionLooking("redis://[::1]:6379"));
        assertNull(TollgateCli.productionLooking("redis://user:secret@127.0.0.1:6379/0"));
    }

    @Test
    void tlsAnOtherHostOrAProdNameIsProduction() {
        assertEquals("TLS, rediss://", TollgateCli.productionLooking("rediss://127.0.0.1:6379"));
        assertEquals("host 10.0.0.5 is not a loopback address", TollgateCli.productionLooking("redis://10.0.0.5:6379"));
        assertEquals("host cache.internal is not a loopback address", TollgateCli.productionLooking("redis://cache.internal:6379"));
        assertEquals("the host name contains 'prod'", TollgateCli.productionLooking("redis://PROD-redis.localhost:6379"));
    }

    @Test
    void aUriWithoutHostOrOfAnotherSchemeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TollgateCli.productionLooking("http://localhost:6379"));
        assertThrows(IllegalArgumentException.class, () -> TollgateCli.productionLooking("redis:///0"));
    }
}
