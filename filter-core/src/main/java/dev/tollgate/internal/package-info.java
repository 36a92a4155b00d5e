/**
 * Tollgate's implementation: the stores, the bucket script, parsing, the HTTP answer. Not an API;
 * anything here may change in any release.
 */
package dev.tollgate.internal;
