/** JMH benchmarks of the node's hot-key detection. */
package dev.skewer.benchmarks.hotkey;
