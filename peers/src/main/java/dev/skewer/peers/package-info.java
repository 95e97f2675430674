/** Peer races: W1 run on another engine with the bench's broker, events and exact check. */
package dev.skewer.peers;
