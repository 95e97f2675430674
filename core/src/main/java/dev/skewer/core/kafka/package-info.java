/**
 * Kafka bootstrap shared by both stages: client configurations built from one {@link
 * dev.skewer.core.kafka.KafkaSettings} (bootstrap servers plus pass-through properties such as
 * security settings), and {@link dev.skewer.core.kafka.TopicProvisioner}, which creates a job's
 * topics idempotently. Everything here may block; callers run it off the event loop.
 */
package dev.skewer.core.kafka;
