package dev.tollgate.jaxrs;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tollgate.testing.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** This adapter uses the public API alone, and the rules of docs/architecture.md hold with it on the class path. */
class ArchitectureTest {

    private static final JavaClasses CLASSES = ArchitectureRules.production();

    @Test
    void usesOnlyThePublicApi() {
        ArchitectureRules.ADAPTERS_USE_ONLY_THE_API.check(CLASSES);
    }

    @Test
    void apiSignaturesNameNoInternalType() {
        ArchitectureRules.API_SIGNATURES_NAME_NO_INTERNAL_TYPE.check(CLASSES);
    }

    @Test
    void noCyclesBetweenRooms() {
        ArchitectureRules.NO_CYCLES.check(CLASSES);
    }
}
