// ItemBrowser's view (filegram_kit/widgets/items.py): plain DOM, nothing fetched.
// Python filters the items and builds the record on show (`item`); this file draws it and sends back
// the filters (`track`, `sub_track`, `persona`), the `position` and the `reveal` switch.

function html(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, String(value));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

function labelled(text, control) {
  const label = html("label", { class: "fg-filter" });
  label.append(document.createTextNode(text + " "), control);
  return label;
}

function render({ model, el }) {
  const root = html("div", { class: "fg-items" });
  const filters = html("div", { class: "fg-bar" });
  const selects = { track: html("select"), sub_track: html("select"), persona: html("select") };
  const lists = { track: "tracks", sub_track: "sub_tracks", persona: "personas" };
  filters.append(labelled("Track", selects.track), labelled("Sub-task", selects.sub_track),
    labelled("Persona", selects.persona));
  const nav = html("div", { class: "fg-bar" });
  const prev = html("button", { type: "button", title: "previous item" }, "\u25C0");
  const next = html("button", { type: "button", title: "next item" }, "\u25B6");
  const where = html("input", { type: "number", min: 1, step: 1, class: "fg-where", "aria-label": "item number" });
  const total = html("span", { class: "fg-count" });
  const revealBox = html("input", { type: "checkbox" });
  const revealLabel = html("label", { class: "fg-reveal" });
  revealLabel.append(revealBox, document.createTextNode(" show the answer"));
  nav.append(prev, where, total, next, revealLabel);
  const card = html("div", { class: "fg-card" });
  root.append(filters, nav, card);
  el.append(root);

  const send = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };

  function drawFilters() {
    for (const [name, select] of Object.entries(selects)) {
      const options = [html("option", { value: "" }, "all"),
        ...model.get(lists[name]).map((v) => html("option", { value: v }, v))];
      select.replaceChildren(...options);
      select.value = model.get(name);
    }
  }

  function drawNav() {
    const count = model.get("count");
    where.max = Math.max(count, 1);
    where.value = count ? model.get("position") + 1 : 0;
    where.disabled = count === 0;
    total.textContent = `of ${count} item${count === 1 ? "" : "s"}`;
    prev.disabled = model.get("position") <= 0;
    next.disabled = model.get("position") >= count - 1;
    revealBox.checked = model.get("reveal");
  }

  function drawAnswers(item, reveal) {
    if (!model.get("has_results")) return [];
    if (!item.answers.length) return [html("p", { class: "fg-hint" }, "No results rows for this item.")];
    const table = html("table", { class: "fg-answers" });
    const head = html("tr");
    head.append(html("th", {}, "method"), html("th", {}, "answer"), html("th", {}, reveal ? "correct" : ""));
    table.append(head);
    for (const a of item.answers) {
      const tr = html("tr");
      const mark = !reveal ? "" : a.is_correct === true ? "\u2714" : a.is_correct === false ? "\u2718" : "\u2014";
      const extra = a.score !== undefined && a.score !== null && reveal && !item.is_mcq ? ` (${a.score})` : "";
      const answer = a.error ? `error: ${a.error}` : a.answer === null ? "\u2014" : String(a.answer);
      tr.append(html("td", {}, a.method), html("td", {}, answer.length > 300 ? answer.slice(0, 300) + " \u2026" : answer),
        html("td", { class: a.is_correct === true ? "fg-ok" : "fg-no" }, mark + extra));
      table.append(tr);
    }
    return [html("div", { class: "fg-sub" }, "Answers in the results"), table];
  }

  function drawCard() {
    const item = model.get("item");
    const reveal = model.get("reveal");
    if (!item || item.question_id === undefined) {
      card.replaceChildren(html("p", { class: "fg-hint" }, "No item matches these filters."));
      return;
    }
    const parts = [
      html("div", { class: "fg-head" }, item.question_id),
      html("div", { class: "fg-meta" },
        `${item.track} / ${item.sub_track} / ${item.sub_class} \u00B7 channel ${item.channel} \u00B7 about ${item.profile_id}`),
      html("blockquote", { class: "fg-question" }, item.question),
    ];
    if (item.is_mcq) {
      const list = html("ol", { class: "fg-choices" });
      for (const c of item.choices) {
        const right = reveal && c.letter === item.correct;
        const li = html("li", { class: right ? "fg-right" : "" });
        li.append(html("b", {}, `${c.letter}. `), document.createTextNode(c.text));
        list.append(li);
      }
      parts.push(list);
      parts.push(html("p", { class: "fg-answer" }, reveal
        ? `Correct: ${item.correct} (chance ${Math.round(item.chance * 100)}%)`
        : "The answer is hidden: tick \u201Cshow the answer\u201D."));
    } else {
      parts.push(html("p", { class: "fg-answer" }, reveal
        ? `Free-form; the reference the judge scores against: ${item.correct_text}`
        : "Free-form item; the reference answer is hidden: tick \u201Cshow the answer\u201D."));
    }
    parts.push(html("div", { class: "fg-inputs" },
      `Inputs (${item.input_trajectories.length}): ${item.input_trajectories.join(", ")}`));
    parts.push(...drawAnswers(item, reveal));
    card.replaceChildren(...parts);
  }

  for (const [name, select] of Object.entries(selects)) {
    select.addEventListener("change", () => send(name, select.value));
  }
  prev.addEventListener("click", () => send("position", model.get("position") - 1));
  next.addEventListener("click", () => send("position", model.get("position") + 1));
  where.addEventListener("change", () => send("position", Math.max(0, Number(where.value) - 1)));
  revealBox.addEventListener("change", () => send("reveal", revealBox.checked));

  const handlers = [["change:tracks", drawFilters], ["change:sub_tracks", drawFilters],
    ["change:personas", drawFilters], ["change:track", drawFilters], ["change:sub_track", drawFilters],
    ["change:persona", drawFilters], ["change:count", drawNav], ["change:position", drawNav],
    ["change:reveal", drawNav], ["change:reveal", drawCard], ["change:item", drawCard],
    ["change:has_results", drawCard]];
  for (const [name, fn] of handlers) model.on(name, fn);
  drawFilters();
  drawNav();
  drawCard();
  return () => { for (const [name, fn] of handlers) model.off(name, fn); };
}

export default { render };
