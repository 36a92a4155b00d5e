package dev.tollgate;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tollgate.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** The core's layout keeps the rules of docs/architecture.md. */
class ArchitectureTest {

    private static final JavaClasses CORE = ArchitectureRules.production();

    @Test
    void onlyTheRedisRoomUsesJedis() {
        ArchitectureRules.ONLY_THE_REDIS_ROOM_USES_JEDIS.check(CORE);
    }

    @Test
    void apiSignaturesNameNoInternalType() {
        ArchitectureRules.API_SIGNATURES_NAME_NO_INTERNAL_TYPE.check(CORE);
    }

    @Test
    void noCyclesBetweenRooms() {
        ArchitectureRules.NO_CYCLES.check(CORE);
    }

    @Test
    void noCyclesBetweenTheRoomsOfTheEngine() {
        ArchitectureRules.NO_CYCLES_INSIDE_THE_ENGINE.check(CORE);
    }

    @Test
    void configIsAFloor() {
        ArchitectureRules.CONFIG_IS_A_FLOOR.check(CORE);
    }
}
