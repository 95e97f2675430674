/**
 * The coordinators' global watermark, fed back to the nodes: each coordinator publishes, per
 * partials partition it owns, the global watermark that its windows are judged late against; each
 * node adopts the minimum over all partials partitions, so an idle partition that wakes up judges
 * its events against the watermark the cluster has moved on to, and the coordinators can drop
 * windows an idle partition will never send to. {@link dev.skewer.core.frontier.Frontier} is the
 * exchange; Hazelcast carries it between processes.
 */
package dev.skewer.core.frontier;
