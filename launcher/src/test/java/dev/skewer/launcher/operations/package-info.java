/**
 * Operability on a real broker and real Hazelcast members: health and metrics endpoints, committed
 * offsets, names derived from the job, provisioning, the README's cluster recipe.
 */
package dev.skewer.launcher.operations;
