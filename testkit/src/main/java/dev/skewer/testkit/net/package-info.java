/** Network helpers for tests and the demo: free loopback ports. */
package dev.skewer.testkit.net;
