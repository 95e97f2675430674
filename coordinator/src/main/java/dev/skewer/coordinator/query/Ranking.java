package dev.skewer.coordinator.query;

import java.util.Comparator;
import java.util.Locale;
import java.util.Objects;

/**
 * What a top-K ranks by: the exact event count, the sum of one numeric field, or the distinct-count
 * estimate. Ties are broken by key (ascending), so a ranking is deterministic; NaN sorts last.
 *
 * @param by the measure
 * @param field the numeric field's index (job order) for {@link By#SUM}, else -1
 */
public record Ranking(By by, int field) {

  /** The measures. */
  public enum By {
    COUNT,
    SUM,
    DISTINCT;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public static final Ranking COUNT = new Ranking(By.COUNT, -1);
  public static final Ranking DISTINCT = new Ranking(By.DISTINCT, -1);

  public Ranking {
    Objects.requireNonNull(by, "by");
    if (by == By.SUM && field < 0) {
      throw new IllegalArgumentException("field must be >= 0 for a sum, was " + field);
    }
    if (by != By.SUM) {
      field = -1;
    }
  }

  public static Ranking sum(int field) {
    return new Ranking(By.SUM, field);
  }

  /** The measure of a stored result. */
  public double valueOf(StoredResult r) {
    return switch (by) {
      case COUNT -> r.count();
      case SUM -> field < r.sums().length ? r.sums()[field] : Double.NaN;
      case DISTINCT -> r.distinct();
    };
  }

  /** Largest first, NaN last, then by key. */
  public Comparator<StoredResult> order() {
    Comparator<StoredResult> byValue =
        (a, b) -> {
          double x = valueOf(a);
          double y = valueOf(b);
          boolean nx = Double.isNaN(x);
          boolean ny = Double.isNaN(y);
          if (nx || ny) {
            return nx == ny ? 0 : (nx ? 1 : -1);
          }
          return Double.compare(y, x);
        };
    return byValue.thenComparing(StoredResult::key);
  }
}
