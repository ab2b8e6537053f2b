// TimelineBrowser's view (filegram_kit/widgets/timeline.py): plain DOM + SVG, nothing fetched.
// Python computes everything shown (events, rows, detail); this file draws it and sends back
// `selected` (trajectory), `metadata` (checkbox) and `selected_event` (the clicked event).

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function html(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, String(value));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

function tickStep(span, target) {
  const raw = span / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

function diffBlock(text, isDiff) {
  const pre = html("pre", { class: "fg-pre" });
  if (!isDiff) {
    pre.textContent = text;
    return pre;
  }
  for (const line of text.split("\n")) {
    let cls = "";
    if (line.startsWith("@@")) cls = "fg-hunk";
    else if (line.startsWith("+") && !line.startsWith("+++")) cls = "fg-add";
    else if (line.startsWith("-") && !line.startsWith("---")) cls = "fg-del";
    pre.append(html("span", { class: cls }, line + "\n"));
  }
  return pre;
}

function render({ model, el }) {
  const root = html("div", { class: "fg-timeline" });
  const bar = html("div", { class: "fg-bar" });
  const pick = html("select", { "aria-label": "trajectory" });
  const single = html("strong", { class: "fg-single" });
  const metaLabel = html("label", { class: "fg-meta" });
  const metaBox = html("input", { type: "checkbox" });
  metaLabel.append(metaBox, document.createTextNode(" simulation metadata"));
  const prev = html("button", { type: "button", title: "previous event" }, "\u25C0");
  const next = html("button", { type: "button", title: "next event" }, "\u25B6");
  const count = html("span", { class: "fg-count" });
  bar.append(pick, single, metaLabel, prev, next, count);
  const plot = html("div", { class: "fg-plot" });
  const legend = html("div", { class: "fg-legend" });
  const detail = html("div", { class: "fg-detail" });
  root.append(bar, plot, legend, detail);
  el.append(root);

  const choose = (index) => {
    model.set("selected_event", index);
    model.save_changes();
  };

  function drawChoices() {
    const choices = model.get("choices");
    pick.replaceChildren(...choices.map((c) => html("option", { value: c.id }, c.label)));
    pick.value = model.get("selected");
    pick.style.display = choices.length > 1 ? "" : "none";
    single.style.display = choices.length > 1 ? "none" : "";
    single.textContent = choices.length ? choices[0].label : "";
  }

  function drawPlot() {
    const events = model.get("events");
    const rows = model.get("rows");
    const colors = model.get("colors");
    const selected = model.get("selected_event");
    const W = 900, left = 170, right = 20, top = 8, rowH = 22;
    const H = top + rows.length * rowH + 38;
    const span = events.reduce((m, e) => Math.max(m, e.seconds), 0) || 1;
    const x = (s) => left + ((W - left - right) * s) / span;
    const rowOf = new Map(rows.map((t, i) => [t, i]));
    const y = (t) => top + rowOf.get(t) * rowH + rowH / 2;
    const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "fg-svg", role: "img" });
    rows.forEach((t) => {
      chart.append(svg("line", { x1: left, x2: W - right, y1: y(t), y2: y(t), class: "fg-grid" }));
      chart.append(svg("text", { x: left - 8, y: y(t) + 4, "text-anchor": "end", class: "fg-label" }, t));
    });
    const axisY = top + rows.length * rowH + 4;
    const step = tickStep(span, 8);
    for (let v = 0; v <= span + 1e-9; v += step) {
      chart.append(svg("line", { x1: x(v), x2: x(v), y1: axisY, y2: axisY + 4, class: "fg-tick" }));
      chart.append(svg("text", { x: x(v), y: axisY + 16, "text-anchor": "middle", class: "fg-label" },
        Number(v.toFixed(3)).toString()));
    }
    chart.append(svg("text", { x: W - right, y: axisY + 32, "text-anchor": "end", class: "fg-label" },
      "seconds since the first event"));
    for (const e of events) {
      const on = e.index === selected;
      const dot = svg("circle", {
        cx: x(e.seconds), cy: y(e.type), r: on ? 7 : e.category === "metadata" ? 3.5 : 5,
        fill: colors[e.category] || colors.unknown || "#555", class: on ? "fg-dot fg-on" : "fg-dot",
      });
      dot.append(svg("title", {}, `#${e.index} ${e.type} ${e.path} (${e.seconds} s)`));
      dot.addEventListener("click", () => choose(e.index));
      chart.append(dot);
    }
    plot.replaceChildren(chart);
    count.textContent = `${events.length} events`;
    const shown = [...new Set(events.map((e) => e.category))];
    legend.replaceChildren(...shown.map((c) => {
      const entry = html("span", { class: "fg-key" });
      entry.append(html("span", { class: "fg-swatch", style: `background:${colors[c] || "#555"}` }),
        document.createTextNode(c));
      return entry;
    }));
  }

  function stepEvent(delta) {
    const events = model.get("events");
    if (!events.length) return;
    let i = events.findIndex((e) => e.index === model.get("selected_event"));
    if (i < 0) i = delta > 0 ? 0 : events.length - 1;
    else i = Math.min(events.length - 1, Math.max(0, i + delta));
    choose(events[i].index);
  }

  function drawDetail() {
    const d = model.get("detail");
    if (!d || d.index === undefined) {
      detail.replaceChildren(html("p", { class: "fg-hint" },
        "Click an event (or use \u25C0 \u25B6) for its fields and the content it wrote."));
      return;
    }
    const parts = [html("div", { class: "fg-head" }, `#${d.index} ${d.type} \u00B7 ${d.category} \u00B7 ${d.seconds} s`)];
    const table = html("table", { class: "fg-fields" });
    for (const [name, value] of d.fields) {
      const tr = html("tr");
      tr.append(html("th", {}, name), html("td", {}, value));
      table.append(tr);
    }
    parts.push(table);
    const p = d.preview || {};
    if (p.kind === "diff" || p.kind === "blob") {
      const what = p.kind === "diff" ? "Unified diff" : "Full text written";
      const cut = p.truncated ? ` (the first ${p.text.length} of ${p.chars} characters)` : "";
      parts.push(html("div", { class: "fg-sub" }, what + cut), diffBlock(p.text, p.kind === "diff"));
    } else if (p.text) {
      parts.push(html("p", { class: "fg-hint" }, p.text));
    }
    detail.replaceChildren(...parts);
  }

  pick.addEventListener("change", () => {
    model.set("selected", pick.value);
    model.save_changes();
  });
  metaBox.addEventListener("change", () => {
    model.set("metadata", metaBox.checked);
    model.save_changes();
  });
  prev.addEventListener("click", () => stepEvent(-1));
  next.addEventListener("click", () => stepEvent(1));

  const syncMeta = () => { metaBox.checked = model.get("metadata"); };
  const syncPick = () => { pick.value = model.get("selected"); };
  const handlers = [["change:choices", drawChoices], ["change:selected", syncPick], ["change:metadata", syncMeta],
    ["change:events", drawPlot], ["change:rows", drawPlot], ["change:selected_event", drawPlot],
    ["change:detail", drawDetail]];
  for (const [name, fn] of handlers) model.on(name, fn);
  drawChoices();
  syncMeta();
  drawPlot();
  drawDetail();
  return () => { for (const [name, fn] of handlers) model.off(name, fn); };
}

export default { render };
