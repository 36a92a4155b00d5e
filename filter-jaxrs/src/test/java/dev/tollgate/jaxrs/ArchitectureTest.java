package dev.tollgate.jaxrs;

import dev.tollgate.testing.AdapterArchitectureTest;

/** This adapter uses the public API alone, and the rules of docs/architecture.md hold with it on the class path. */
class ArchitectureTest extends AdapterArchitectureTest {
}
