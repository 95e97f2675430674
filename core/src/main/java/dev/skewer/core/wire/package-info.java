/**
 * The binary messages of the partials topic (stage 1 → stage 2). Placeholder; the layout table
 * follows with the codec.
 */
package dev.skewer.core.wire;
