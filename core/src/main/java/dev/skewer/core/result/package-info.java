/**
 * The results envelope: one JSON object per (key, window), keyed {@code <key>@<windowStartMs>}
 * on the compacted results topic so that a revision replaces its predecessor.
 */
package dev.skewer.core.result;
