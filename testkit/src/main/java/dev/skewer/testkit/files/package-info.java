/** File-system helpers shared by the tests, the benches and the embedded broker. */
package dev.skewer.testkit.files;
