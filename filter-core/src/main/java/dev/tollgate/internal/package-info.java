/**
 * Tollgate's implementation, one package per role (see docs/architecture.md); this package itself
 * holds only the message ids. Not an API; anything here may change in any release.
 */
package dev.tollgate.internal;
