/**
 * A node's HTTP endpoints: liveness, readiness (every assigned partition restored and consuming,
 * produces succeeding) and Prometheus metrics, in one small verticle bound to the node's bind
 * address and HTTP port.
 */
package dev.skewer.node.http;
