/**
 * A real single-node KRaft Kafka broker (combined broker and controller) for tests and the demo,
 * either in this JVM ({@link dev.skewer.testkit.kafka.EmbeddedKafka}) or as a child JVM that can be
 * killed and restarted ({@link dev.skewer.testkit.kafka.KafkaBrokerProcess}), plus a reader that
 * drains a topic for assertions ({@link dev.skewer.testkit.kafka.TopicReader}), and the fixture
 * that gives a test class one broker with its jobs' topics ({@link
 * dev.skewer.testkit.kafka.BrokerFixture}).
 */
package dev.skewer.testkit.kafka;
