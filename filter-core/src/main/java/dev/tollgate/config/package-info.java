/**
 * Configuration: where values come from ({@link dev.tollgate.config.ConfigSource}, in order of
 * precedence in a {@link dev.tollgate.config.ConfigLookup}), the key names
 * ({@link dev.tollgate.config.Settings}) and the validated result
 * ({@link dev.tollgate.config.TollgateConfig}).
 */
package dev.tollgate.config;
