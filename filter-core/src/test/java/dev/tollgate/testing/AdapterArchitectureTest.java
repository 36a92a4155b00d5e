package dev.tollgate.testing;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;

/**
 * The rules of docs/architecture.md as an adapter module checks them: it uses the public API
 * alone, and the rules hold with it on the class path. Each adapter module extends this once.
 */
public abstract class AdapterArchitectureTest {

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
