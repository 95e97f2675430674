/** Loopback ports for clusters started on one machine. */
package dev.skewer.core.net;
