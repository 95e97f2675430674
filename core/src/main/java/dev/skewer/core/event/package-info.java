/**
 * Decoding of raw JSON events into a reusable {@link dev.skewer.core.event.DecodedEvent}: the key
 * (hot-key salt stripped), the event time and the values the job's sketches consume. The decoder
 * streams tokens and matches the configured JSON pointers on the fly, building no tree; a record it
 * cannot use yields a {@link dev.skewer.core.event.DlqReason}, never an exception.
 */
package dev.skewer.core.event;
