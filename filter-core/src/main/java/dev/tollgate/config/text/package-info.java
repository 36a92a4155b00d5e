/**
 * The configuration's words and syntaxes, which the engine quotes: the messages of a
 * configuration's problems and their ids ({@link dev.tollgate.config.text.ConfigMessages}),
 * durations as operators write them ({@link dev.tollgate.config.text.Durations}) and a policy's
 * {@code key} ({@link dev.tollgate.config.text.KeyResolvers}). Like all of {@code dev.tollgate.config}
 * it depends on nothing of the engine ({@code internal}). Not an API: public only so that Tollgate's
 * own packages can use it; anything here may change in any release.
 */
package dev.tollgate.config.text;
