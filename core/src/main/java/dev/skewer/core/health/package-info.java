/**
 * Health of a process as its HTTP endpoints report it: {@link dev.skewer.core.health.Readiness}
 * (ready or not, and why), computed by the stages and served by their HTTP verticles.
 */
package dev.skewer.core.health;
