/**
 * Stage 1 of Skewer: the node process. {@link dev.skewer.node.NodeRuntime} starts a Vert.x instance
 * (and optionally a Hazelcast member) and deploys the ingest verticle, which consumes the events
 * topic and emits Partials and Watermarks to the partials topic.
 */
package dev.skewer.node;
