/** The {@code skewer} command line: demo, node, coordinator, loadgen, bench, broker. */
package dev.skewer.launcher;
