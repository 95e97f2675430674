package dev.skewer.core.job;

/**
 * An invalid job configuration. The message starts with the path of the offending field ({@code
 * window.size: must be > 0, was -5s}); records throw it with their own field name and {@link
 * JobSpecLoader} prefixes the path of the enclosing sections.
 */
public final class JobSpecException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final String problem;

  /**
   * @param path the dotted field path, e.g. {@code window.size}
   * @param problem what is wrong, including the bad value
   */
  public JobSpecException(String path, String problem) {
    super(path.isEmpty() ? problem : path + ": " + problem);
    this.path = path;
    this.problem = problem;
  }

  /** The dotted path of the offending field ({@code window.size}). */
  public String path() {
    return path;
  }

  /** The problem without the path. */
  public String problem() {
    return problem;
  }

  /** The same problem, with {@code parent} prepended to the path. */
  public JobSpecException under(String parent) {
    String p = path.isEmpty() ? parent : path.startsWith("[") ? parent + path : parent + "." + path;
    JobSpecException e = new JobSpecException(p, problem);
    e.setStackTrace(getStackTrace());
    return e;
  }
}
