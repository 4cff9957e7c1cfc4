"use strict";
(function () {
  const data = (id) => JSON.parse(document.getElementById(id).textContent);
  const runs = data("runs");
  const index = data("index"); // [run, trial, scenario, family, event, verdict, strategy, boundary, wall, cost, changed metrics]
  const $ = (id) => document.getElementById(id);
  // Everything the page adds is built as elements and text nodes, never parsed from a
  // string, so no text from the data can turn into markup. Children may be nested arrays;
  // null and undefined are left out.
  const h = (tag, attrs, ...children) => {
    const el = document.createElement(tag);
    for (const k in attrs || {}) el.setAttribute(k, attrs[k]);
    const add = (c) => {
      if (c == null) return;
      if (Array.isArray(c)) c.forEach(add);
      else el.append(c instanceof Node ? c : String(c));
    };
    children.forEach(add);
    return el;
  };
  const str = (s) => (s == null ? "" : String(s));
  const uniq = (k) => [...new Set(index.map((r) => r[k]))].sort();
  const fill = (sel, values, label) => {
    for (const v of values) { const o = document.createElement("option"); o.value = v; o.textContent = label ? label(v) : v; sel.appendChild(o); }
  };
  const runTitle = (r) => runs[r].name + " " + (runs[r].title ? runs[r].title + ": " : "") + runs[r].label;
  fill($("f-run"), runs.map((_, i) => String(i)), (i) => runTitle(i));
  fill($("f-family"), uniq(3));
  fill($("f-event"), uniq(4));
  const body = document.querySelector("#trials tbody");

  // Trials are packed (see report/pack.rs): "@N" is entry N of the string table, and an
  // event is an array in its type's field order. Both tables are read on first use.
  let strings = null, layouts = null;
  const expand = (v) => {
    if (typeof v === "string") return v[0] === "@" ? strings[Number(v.slice(1))] : v;
    if (Array.isArray(v)) return v.map(expand);
    if (v && typeof v === "object") { const o = {}; for (const k in v) o[k] = expand(v[k]); return o; }
    return v;
  };
  const record = (o, keys, values) => { keys.forEach((k, i) => { o[k] = i < values.length ? expand(values[i]) : null; }); return o; };
  function trial(island) {
    if (!strings) { strings = data("strings"); layouts = data("layouts"); }
    const [verdict, events, problems] = JSON.parse(island.textContent);
    return {
      verdict: record({}, layouts.verdict || [], verdict),
      problems: expand(problems),
      events: events.map((a) => { const type = expand(a[0]); return record({type}, layouts[type] || [], a.slice(1)); }),
    };
  }

  // The list is built in chunks as it is scrolled: a 13-run matrix has thousands of
  // trials, and laying out every row at load would delay the page.
  const CHUNK = 300;
  let matches = [], rendered = 0;
  const td = (text, attrs) => h("td", attrs, text);
  const row = (r) => h("tr", {"data-r": r[0], "data-t": r[1]},
    td(runs[r[0]].name), td(r[2]), td(r[3]), td(r[6]), td(r[7]), td(r[4]), td(r[5], {class: "v-" + r[5]}),
    td(r[8]), td(r[9] == null ? "-" : r[9].toPrecision(3)), td((r[10] || []).join(", ")));
  function renderMore() {
    if (rendered >= matches.length) return;
    const next = matches.slice(rendered, rendered + CHUNK);
    const rows = document.createDocumentFragment();
    for (const r of next) rows.append(row(r));
    body.append(rows);
    rendered += next.length;
  }

  function renderList() {
    const run = $("f-run").value, verdict = $("f-verdict").value, family = $("f-family").value, event = $("f-event").value;
    const text = $("f-text").value.trim(), changed = $("f-changed").value;
    // A trial passes the changed filter when its scenario's verdict on that metric (any
    // metric for "any") differs between the runs where it is valid.
    const changedOk = (r) => !changed || (changed === "any" ? (r[10] || []).length > 0 : (r[10] || []).includes(changed));
    matches = index.filter((r) => !((run && String(r[0]) !== run) || (verdict && r[5] !== verdict) || (family && r[3] !== family) || (event && r[4] !== event) || (text && !r[2].includes(text)) || !changedOk(r)));
    body.replaceChildren();
    rendered = 0;
    renderMore();
    $("f-count").textContent = matches.length + " of " + index.length + " trials";
  }
  const wrap = document.querySelector(".trials-wrap");
  wrap.addEventListener("scroll", () => {
    if (wrap.scrollTop + wrap.clientHeight > wrap.scrollHeight - 200) renderMore();
  });

  // The text in a <pre>, each canary in it marked.
  function highlighted(text, canaries) {
    let parts = [str(text)];
    for (const c of canaries) {
      if (!c) continue;
      parts = parts.flatMap((p) => typeof p !== "string" ? [p] : p.split(c).flatMap((s, i) => (i ? [h("mark", null, c), s] : [s])));
    }
    return h("pre", null, parts);
  }

  function eventNodes(e, canaries) {
    const pre = (t) => highlighted(t, canaries);
    const k = h("span", {class: "k"}, e.type.replace("_", " "));
    switch (e.type) {
      case "delivery":
        return [k, (e.notice ? "platform notice" : "from " + str(e.speaker)) + " in " + str(e.community), pre(e.text)];
      case "model_call":
        return h("details", null,
          h("summary", null, k, str(e.messages) + " messages in, " + str(e.input_tokens) + " / " + str(e.output_tokens) + " tokens, " + str(e.latency_ms || 0) + " ms", e.error ? [" ", h("b", null, "error")] : null),
          h("div", null, "last message (" + str(e.last_role) + ")", pre(e.last || "")),
          e.response ? h("div", null, "response", pre(e.response)) : null,
          (e.tool_calls || []).map((t) => h("div", null, "tool call ", h("b", null, t.name), pre(t.arguments))),
          e.error ? pre(e.error) : null);
      case "tool_call":
        return [k, h("b", null, e.tool), " in " + str(e.community) + (e.is_error ? " (error)" : ""), pre(e.arguments), h("div", null, "result"), pre(e.result)];
      case "object_served":
        return [k, str(e.object) + " via " + str(e.via)];
      case "effect":
        return [k, "in " + str(e.community), pre(e.effect)];
      case "reply":
        return [k, "in " + str(e.community), pre(e.text)];
      case "guard_decision":
        return [k, "layer " + str(e.layer) + ", " + str(e.point) + ": ", h("b", null, e.decision),
          " " + str(e.action) + " of " + str(e.object) + " to " + str(e.destination) + (e.enforced === false ? " (shadow)" : "") + " ",
          h("small", null, (e.policies || []).join(", ") + (e.errors && e.errors.length ? " errors: " + e.errors.join("; ") : ""))];
      case "workspace_view":
        return [k, "view of the workspace in " + str(e.community) + ": " + ((e.withheld || []).length ? e.withheld.map((w) => str(w.path) + " withheld (" + (w.labels || []).join(", ") + ")").join("; ") : "nothing withheld")];
      case "workspace_writes":
        return [k, "writes in " + str(e.community) + ": " + ((e.written || []).map((w) => str(w.path) + " carries " + ((w.labels || []).join(", ") || "no label")).join("; ") || "none"),
          (e.reverted || []).length ? ["; ", h("b", null, "undone"), ": " + e.reverted.join(", ")] : null];
      case "harness_output":
        return h("details", null, h("summary", null, k, e.source), pre(e.text));
      case "infra":
        return [k, e.cause];
      case "rewrite":
        return [k, "of " + str(e.speaker) + " (" + str(e.site) + ") by " + str(e.by) + ", attempt " + ((e.attempt || 0) + 1),
          e.rejected ? [": ", h("b", null, "rejected"), " (" + str(e.rejected) + ": " + str(e.detail) + "), the seed delivered", pre(e.proposed || "")] : null,
          h("div", null, "seed"), pre(e.seed), e.rejected ? null : [h("div", null, "delivered"), pre(e.text)]];
      default:
        return [k, pre(e.raw || "")];
    }
  }

  function openTrace(r, t) {
    const island = document.getElementById("t" + r + "-" + t);
    const view = $("trace-view");
    if (!island) { view.hidden = false; view.textContent = "No such trial."; return; }
    const d = trial(island);
    const entry = index.find((x) => x[0] === r && x[1] === t);
    const v = d.verdict;
    const canaries = (v.violations || []).map((x) => x.canary);
    const out = document.createDocumentFragment();
    out.append(h("h3", {id: "trace-title"}, runs[r].name + " " + str(entry ? entry[2] : "") + ": ", h("span", {class: "v-" + v.class}, v.class)));
    out.append(h("p", null, runTitle(r) + " \u00b7 PVR " + v.pvr + ", PVR all " + (v.pvr_all == null ? v.pvr : v.pvr_all) + ", CCPVR " + v.ccpvr + ", BCR " + v.bcr + ", STCR " + v.stcr + (v.stale_state ? ", stale state" : "") + (v.cause ? " \u00b7 " + v.cause : "")));
    const ev = [];
    for (const x of v.violations || []) ev.push(h("li", null, "turn " + str(x.turn) + ": ", h("mark", null, x.canary), " of " + str(x.object) + " reached " + str(x.destination) + (x.audience && x.audience.length ? " (" + x.audience.join(", ") + ")" : "") + " by " + str(x.carrier) + (x.effect ? " (" + x.effect + ")" : "") + (x.scored === false ? ", outside the scored action" : "") + (x.cross_community ? ", cross-community" : "") + (x.after_event ? ", after the event" : "")));
    if (v.failure_class) ev.push(h("li", null, "failure class ", h("b", null, v.failure_class.class), ": " + (v.failure_class.evidence || []).join(" | ")));
    for (const g of v.goal_failures || []) ev.push(h("li", null, "goal check failed: " + str(g)));
    for (const g of v.evidence_gaps || []) ev.push(h("li", null, "evidence gap: " + str(g)));
    for (const p of d.problems || []) ev.push(h("li", null, "trace problem: " + str(p)));
    ev.push(h("li", null, "judge: " + str(typeof v.judge === "string" ? v.judge : JSON.stringify(v.judge))));
    out.append(h("ul", {class: "evidence"}, ev));
    let turn = null;
    for (const e of d.events) {
      if (e.turn !== turn) { turn = e.turn; out.append(h("div", {class: "turn"}, "turn " + (turn == null ? "-" : turn))); }
      out.append(h("div", {class: "ev ev-" + e.type}, eventNodes(e, canaries)));
    }
    view.replaceChildren(out);
    view.hidden = false;
    for (const row of body.querySelectorAll("tr.open")) row.classList.remove("open");
    const row = body.querySelector("tr[data-r=\"" + r + "\"][data-t=\"" + t + "\"]");
    if (row) row.classList.add("open");
  }

  function fromLocation() {
    const m = /(?:^|[#?&])trace=(\d+)\/([^&]+)/.exec(location.hash + "&" + location.search);
    if (!m) return;
    const r = Number(m[1]) - 1, scenario = decodeURIComponent(m[2]);
    const entry = index.find((x) => x[0] === r && x[2] === scenario);
    if (entry) { openTrace(entry[0], entry[1]); $("trace-view").scrollIntoView(); }
  }

  for (const id of ["f-run", "f-verdict", "f-family", "f-event", "f-changed", "f-text"]) $(id).addEventListener("input", renderList);
  body.addEventListener("click", (ev) => {
    const tr = ev.target.closest("tr");
    if (!tr) return;
    const r = Number(tr.dataset.r), t = Number(tr.dataset.t);
    const entry = index.find((x) => x[0] === r && x[1] === t);
    history.replaceState(null, "", "#trace=" + (r + 1) + "/" + encodeURIComponent(entry ? entry[2] : ""));
    openTrace(r, t);
  });
  window.addEventListener("hashchange", fromLocation);
  renderList();
  fromLocation();
  // Time from navigation start to a usable page, read by the load-time benchmark.
  document.body.dataset.readyMs = String(Math.round(performance.now()));
})();
