/**
 * The results envelope: one JSON object per (key, window) in the shape of the seed documents
 * ({@code event}, the key field, {@code timestamp}, {@code value}, {@code user_attributes}) plus
 * the job's {@code guarantee}, written by {@link dev.skewer.core.result.ResultFormatter}. Results
 * are keyed {@code <key>@<windowStartMs>} on the compacted results topic, so a revision replaces
 * its predecessor: the sink is an upsert log.
 */
package dev.skewer.core.result;
