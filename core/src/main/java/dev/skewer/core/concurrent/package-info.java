/** Small helpers for work that runs on other threads. */
package dev.skewer.core.concurrent;
