package dev.skewer.coordinator.query;

/**
 * A query parameter that cannot be answered: the API turns it into a 400 whose JSON names the
 * parameter.
 */
public final class BadParameter extends RuntimeException {

  private final String parameter;

  public BadParameter(String parameter, String message) {
    super(message);
    this.parameter = parameter;
  }

  /** The parameter's name. */
  public String parameter() {
    return parameter;
  }
}
