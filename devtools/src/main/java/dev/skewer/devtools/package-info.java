/**
 * The development launcher {@code skewer-dev.jar}: the product commands plus {@code demo}, {@code
 * broker} and {@code bench}. It holds the embedded Kafka broker, so it is never what a deployment
 * runs (that is {@code skewer.jar}).
 */
package dev.skewer.devtools;
