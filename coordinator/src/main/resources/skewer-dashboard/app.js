// Skewer dashboard: polls the coordinator's API every 2 s. No build step, no dependencies.
// A bearer token (when the coordinator has one) is taken from the URL fragment (#token=...)
// once and kept in this browser's localStorage.
(function () {
  "use strict";
  var REFRESH_MS = 2000;
  var fragment = new URLSearchParams(window.location.hash.slice(1));
  if (fragment.get("token")) {
    localStorage.setItem("skewer.token", fragment.get("token"));
    history.replaceState(null, "", window.location.pathname);
  }
  var token = localStorage.getItem("skewer.token");
  var refreshes = 0;
  var hotKeys = {};

  function $(id) { return document.getElementById(id); }
  function fmt(n, digits) {
    if (n === null || n === undefined) return "–";
    return Number(n).toLocaleString("en-US", { maximumFractionDigits: digits === undefined ? 0 : digits });
  }
  function duration(ms) {
    if (ms === null || ms === undefined) return "–";
    if (ms < 1000) return ms + " ms";
    if (ms < 120000) return (ms / 1000).toFixed(1) + " s";
    return (ms / 60000).toFixed(1) + " min";
  }
  function utc(ms) { return ms === null || ms === undefined ? "–" : new Date(ms).toISOString().slice(11, 19); }
  function text(el, value) { el.textContent = value; return el; }
  function el(tag, cls, content) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    return e;
  }
  function get(path) {
    var headers = token ? { Authorization: "Bearer " + token } : {};
    return fetch(path, { headers: headers, cache: "no-store" }).then(function (r) {
      return r.json().then(function (body) { return { status: r.status, body: body }; });
    });
  }

  function bars(container, rows, opts) {
    container.replaceChildren();
    if (!rows.length) { container.appendChild(el("div", "empty", opts.empty)); return; }
    var max = Math.max.apply(null, rows.map(function (r) { return r.value || 0; })) || 1;
    rows.forEach(function (r) {
      var row = el("div", "row");
      Object.keys(r.data || {}).forEach(function (k) { row.dataset[k] = r.data[k]; });
      row.appendChild(el("span", "name", r.name)).title = r.name;
      var track = el("div", "track");
      var fill = el("div", "fill" + (r.hot ? " hot" : ""));
      fill.style.width = Math.max(0.5, 100 * (r.value || 0) / max) + "%";
      track.appendChild(fill);
      row.appendChild(track);
      row.appendChild(el("span", "num", r.label));
      container.appendChild(row);
    });
  }
  function table(id, rows) {
    var body = $(id).querySelector("tbody");
    body.replaceChildren();
    rows.forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (c) {
        var td = el("td", c && c.cls, c && c.text !== undefined ? c.text : c);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }
  function measure(entry, by) {
    if (by === "sum") { var s = entry.sum || {}; var k = Object.keys(s)[0]; return k ? s[k] : null; }
    if (by === "distinct") return entry.distinct;
    return entry.count;
  }

  function topK() {
    var by = $("topk-by").value;
    return get("/api/v1/topk?k=10&by=" + by).then(function (r) {
      if (r.status !== 200) {
        text($("topk-window"), "");
        bars($("topk"), [], { empty: r.body.error });
        return;
      }
      var b = r.body;
      text($("topk-window"), utc(b.window_start_ms) + "–" + utc(b.window_end_ms) + " UTC · " +
        b.partitions_reporting + "/" + b.partitions + " partitions · " + fmt(b.keys_in_window) + " keys");
      bars($("topk"), b.keys.map(function (e) {
        var v = measure(e, by);
        return { name: e.key, value: v, label: fmt(v, by === "count" ? 0 : 1), hot: !!hotKeys[e.key],
                 data: { key: e.key, count: e.count } };
      }), { empty: "no keys" });
    });
  }
  function openTopK() {
    return get("/api/v1/topk?k=10&window=open").then(function (r) {
      if (r.status !== 200) { text($("open-window"), ""); bars($("topk-open"), [], { empty: r.body.error }); return; }
      var b = r.body;
      text($("open-window"), utc(b.window_start_ms) + "–" + utc(b.window_end_ms) + " UTC · speculative · " +
        b.partitions_reporting + "/" + b.partitions + " partitions");
      bars($("topk-open"), b.keys.map(function (e) {
        return { name: e.key, value: e.count, label: fmt(e.count), hot: !!hotKeys[e.key], data: { key: e.key } };
      }), { empty: "no keys yet" });
    });
  }
  function status() {
    return get("/api/v1/status").then(function (r) {
      if (r.status !== 200) { text($("status-line"), r.body.error); return; }
      var s = r.body;
      text($("job"), s.job);
      text($("events-rate"), fmt(s.events_per_second));
      text($("results-rate"), fmt(s.results.per_second, 1));
      text($("watermark-lag"), duration(s.watermark.lag_ms));
      text($("late-total"), fmt(s.late.total));
      text($("late-rate"), fmt(s.late.per_second, 1) + "/s");
      text($("dlq-total"), fmt(s.dlq.total));
      text($("dlq-rate"), fmt(s.dlq.per_second, 1) + "/s");
      text($("imbalance"), s.imbalance ? "max/mean " + s.imbalance.toFixed(2) : "");
      bars($("nodes"), s.nodes.map(function (n) {
        return { name: n.node, value: n.events_per_second, label: fmt(n.events_per_second), data: { node: n.node } };
      }), { empty: "no node reports" });
      bars($("partitions"), s.source_partitions.map(function (p) {
        return { name: "p" + p.partition + " · " + p.node, value: p.events_per_second, label: fmt(p.events_per_second) };
      }), { empty: "no partition reports" });
      table("watermarks", s.watermark.partitions.map(function (p) {
        return [p.partition, p.coordinator, duration(p.lag_ms),
                p.sources_reporting + "/" + p.sources + (p.idle_sources ? " (" + p.idle_sources + " idle)" : ""),
                fmt(p.held_partials)];
      }));
    });
  }
  function hot() {
    return get("/api/v1/hotkeys").then(function (r) {
      if (r.status !== 200) return;
      hotKeys = {};
      r.body.hot_keys.forEach(function (h) { hotKeys[h.key] = h.fanout; });
      table("hotkeys", r.body.hot_keys.map(function (h) {
        return [h.key, "×" + h.fanout, utc(h.since_ms)];
      }));
    });
  }
  function lateness() {
    return get("/api/v1/lateness").then(function (r) {
      if (r.status !== 200) return;
      text($("lateness-text"), r.body.text);
      var hist = r.body.histogram.slice(-12);
      bars($("lateness-histogram"), hist.map(function (b) {
        return { name: "≤ " + duration(b.to_ms), value: b.count, label: fmt(b.count) };
      }), { empty: "no late events measured" });
    });
  }
  function members() {
    return get("/api/v1/cluster").then(function (r) {
      if (r.status !== 200) return;
      text($("members-count"), r.body.size);
      table("members", r.body.members.map(function (m) { return [m.name || "?", m.role || "?", m.address]; }));
    });
  }
  function windows() {
    return get("/api/v1/windows?limit=8").then(function (r) {
      if (r.status !== 200) { table("windows", []); return; }
      table("windows", r.body.windows.map(function (w) {
        return [utc(w.window_start_ms), { text: w.state, cls: "state-" + w.state },
                w.partitions_reporting + "/" + w.partitions, fmt(w.keys), fmt(w.revisions), fmt(w.late_events)];
      }));
    });
  }

  function refresh() {
    hot()
      .then(function () { return Promise.all([topK(), openTopK(), status(), lateness(), members(), windows()]); })
      .then(function () {
        refreshes++;
        var u = $("updated");
        u.dataset.refreshes = refreshes;
        text(u, "Updated " + new Date().toISOString().slice(11, 19) + " UTC.");
        text($("status-line"), "live");
      })
      .catch(function (e) { text($("status-line"), "API not reachable: " + e); })
      .finally(function () { setTimeout(refresh, REFRESH_MS); });
  }
  $("topk-by").addEventListener("change", topK);
  refresh();
})();
