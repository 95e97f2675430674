/** Checks of the shaded product jar: what it holds and which commands it offers. */
package dev.skewer.launcher.packaging;
