package dev.skewer.reconcile.internal;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * Sorts byte-array records in bounded memory: records are buffered until their size reaches the
 * budget, then sorted and written to a run file; {@link #sorted()} merges the runs (at most {@value
 * #MERGE_FACTOR} at a time, in several passes when there are more) with what is still buffered.
 *
 * <p>Memory: the buffer holds at most {@code budgetBytes} (record bytes plus {@value #OVERHEAD}
 * bytes of array header and reference per record), and a merge holds one read buffer of {@value
 * #READ_BUFFER} bytes per run it merges. Run files live in a fresh directory under the spill
 * directory and are deleted by {@link #close()}.
 *
 * <p>Not thread-safe: one writer, then one reader.
 */
public final class ExternalSorter implements AutoCloseable {

  /** Runs merged at once. */
  static final int MERGE_FACTOR = 64;

  /** Read buffer per merged run. */
  static final int READ_BUFFER = 64 * 1024;

  /** Heap bytes per buffered record besides its content: array header and list slot. */
  public static final int OVERHEAD = 32;

  private final Comparator<byte[]> order;
  private final long budgetBytes;
  private final Path spillParent;
  private Path dir;
  private ArrayList<byte[]> buffer = new ArrayList<>();
  private long bufferedBytes;
  private final List<Path> runs = new ArrayList<>();
  private long records;
  private long spilledRecords;
  private long spilledBytes;
  private int runsWritten;
  private long peakBufferedBytes;
  private boolean reading;

  /**
   * @param order the sort order
   * @param budgetBytes spill when the buffered records take this much heap; at least 1
   * @param spillParent where the run directory is created (the system temp directory if null)
   */
  public ExternalSorter(Comparator<byte[]> order, long budgetBytes, Path spillParent) {
    if (budgetBytes < 1) {
      throw new IllegalArgumentException("budgetBytes must be >= 1, was " + budgetBytes);
    }
    this.order = order;
    this.budgetBytes = budgetBytes;
    this.spillParent = spillParent;
  }

  /** Adds a record; the array is kept, not copied. */
  public void add(byte[] record) {
    if (reading) {
      throw new IllegalStateException("add after sorted()");
    }
    buffer.add(record);
    bufferedBytes += record.length + OVERHEAD;
    peakBufferedBytes = Math.max(peakBufferedBytes, bufferedBytes);
    records++;
    if (bufferedBytes >= budgetBytes) {
      spill();
    }
  }

  private void spill() {
    buffer.sort(order);
    Path run = newRunFile();
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(run), READ_BUFFER))) {
      for (byte[] r : buffer) {
        out.writeInt(r.length);
        out.write(r);
        spilledBytes += 4 + r.length;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write spill file " + run, e);
    }
    spilledRecords += buffer.size();
    runs.add(run);
    runsWritten++;
    buffer = new ArrayList<>();
    bufferedBytes = 0;
  }

  private Path newRunFile() {
    try {
      if (dir == null) {
        Path parent =
            spillParent != null ? spillParent : Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(parent);
        dir = Files.createTempDirectory(parent, "skewer-reconcile-");
      }
      return Files.createTempFile(dir, "run-", ".bin");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a spill file under " + spillParent, e);
    }
  }

  /**
   * Every record added, in order; may be called once, after the last {@link #add}. The iterator
   * reads run files lazily; it throws {@link UncheckedIOException} if one cannot be read.
   */
  public Iterator<byte[]> sorted() {
    if (reading) {
      throw new IllegalStateException("sorted() may be called once");
    }
    reading = true;
    buffer.sort(order);
    if (runs.isEmpty()) {
      return buffer.iterator();
    }
    while (runs.size() + 1 > MERGE_FACTOR) {
      // merge the oldest runs into one until the rest and the buffer fit one merge
      List<Path> group = new ArrayList<>(runs.subList(0, MERGE_FACTOR));
      runs.subList(0, MERGE_FACTOR).clear();
      Path merged = newRunFile();
      List<Iterator<byte[]>> sources = new ArrayList<>();
      List<RunReader> readers = new ArrayList<>();
      for (Path p : group) {
        RunReader r = new RunReader(p);
        readers.add(r);
        sources.add(r);
      }
      try (DataOutputStream out =
          new DataOutputStream(
              new BufferedOutputStream(Files.newOutputStream(merged), READ_BUFFER))) {
        Iterator<byte[]> it = new MergingIterator(sources, order);
        while (it.hasNext()) {
          byte[] r = it.next();
          out.writeInt(r.length);
          out.write(r);
          spilledBytes += 4 + r.length;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write spill file " + merged, e);
      } finally {
        readers.forEach(RunReader::close);
      }
      for (Path p : group) {
        delete(p);
      }
      runs.add(merged);
    }
    List<Iterator<byte[]>> sources = new ArrayList<>();
    for (Path p : runs) {
      sources.add(new RunReader(p));
    }
    sources.add(buffer.iterator());
    return new MergingIterator(sources, order);
  }

  /** Records added. */
  public long records() {
    return records;
  }

  /** Records written to run files (the first time; merge passes not counted). */
  public long spilledRecords() {
    return spilledRecords;
  }

  /** Bytes written to run files, merge passes included. */
  public long spilledBytes() {
    return spilledBytes;
  }

  /** Run files written by spilling (merge passes not counted). */
  public int runsWritten() {
    return runsWritten;
  }

  /** The most heap the buffer held (record bytes + overhead). */
  public long peakBufferedBytes() {
    return peakBufferedBytes;
  }

  @Override
  public void close() {
    for (Path p : runs) {
      delete(p);
    }
    runs.clear();
    if (dir != null) {
      try (var files = Files.list(dir)) {
        files.forEach(ExternalSorter::delete);
      } catch (IOException e) {
        // best effort: the directory may already be gone
      }
      delete(dir);
      dir = null;
    }
    buffer = new ArrayList<>();
  }

  private static void delete(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      // best effort; a leftover temp file is not worth failing a reconciliation
    }
  }

  /** Reads one run file record by record. */
  private static final class RunReader implements Iterator<byte[]>, AutoCloseable {
    private final Path path;
    private final DataInputStream in;
    private byte[] next;
    private boolean closed;

    RunReader(Path path) {
      this.path = path;
      try {
        this.in =
            new DataInputStream(new BufferedInputStream(Files.newInputStream(path), READ_BUFFER));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read spill file " + path, e);
      }
      advance();
    }

    private void advance() {
      try {
        int length;
        try {
          length = in.readInt();
        } catch (EOFException end) {
          next = null;
          close();
          return;
        }
        byte[] r = new byte[length];
        in.readFully(r);
        next = r;
      } catch (IOException e) {
        close();
        throw new UncheckedIOException("cannot read spill file " + path, e);
      }
    }

    @Override
    public boolean hasNext() {
      return next != null;
    }

    @Override
    public byte[] next() {
      if (next == null) {
        throw new NoSuchElementException();
      }
      byte[] r = next;
      advance();
      return r;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        try {
          in.close();
        } catch (IOException e) {
          // read-only stream
        }
      }
    }
  }

  /** A k-way merge of sorted iterators. */
  private static final class MergingIterator implements Iterator<byte[]> {
    private final PriorityQueue<Head> heads;

    MergingIterator(List<Iterator<byte[]>> sources, Comparator<byte[]> order) {
      heads = new PriorityQueue<>(Math.max(1, sources.size()), (a, b) -> compare(a, b, order));
      for (int i = 0; i < sources.size(); i++) {
        Iterator<byte[]> s = sources.get(i);
        if (s.hasNext()) {
          heads.add(new Head(s.next(), s, i));
        }
      }
    }

    private static int compare(Head a, Head b, Comparator<byte[]> order) {
      int c = order.compare(a.record, b.record);
      return c != 0 ? c : Integer.compare(a.source, b.source); // stable: earlier runs first
    }

    @Override
    public boolean hasNext() {
      return !heads.isEmpty();
    }

    @Override
    public byte[] next() {
      Head h = heads.poll();
      if (h == null) {
        throw new NoSuchElementException();
      }
      byte[] r = h.record;
      if (h.iterator.hasNext()) {
        h.record = h.iterator.next();
        heads.add(h);
      }
      return r;
    }

    private static final class Head {
      byte[] record;
      final Iterator<byte[]> iterator;
      final int source;

      Head(byte[] record, Iterator<byte[]> iterator, int source) {
        this.record = record;
        this.iterator = iterator;
        this.source = source;
      }
    }
  }
}
