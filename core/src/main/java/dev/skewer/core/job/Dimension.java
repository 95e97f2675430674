package dev.skewer.core.job;

/**
 * A string event field copied to the result as is (e.g. a game code or channel); the value is taken
 * from any one event of the window.
 *
 * @param name the result field name
 * @param pointer the JSON pointer of the value in the event
 */
public record Dimension(String name, String pointer) {
  public Dimension {
    Names.requireIdentifier("name", name);
    Pointers.validate("pointer", pointer);
  }
}
