/** Which source partition an event's record lands in (Kafka's default keyed partitioning). */
package dev.skewer.loadgen.partition;
