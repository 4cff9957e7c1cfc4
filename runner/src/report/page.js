"use strict";
(function () {
  const data = (id) => JSON.parse(document.getElementById(id).textContent);
  const runs = data("runs");
  const index = data("index"); // [run, trial, scenario, family, event, verdict, strategy, boundary, wall, cost, changed metrics]
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
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
  const rowHtml = (r) => "<tr data-r=\"" + r[0] + "\" data-t=\"" + r[1] + "\"><td>" + esc(runs[r[0]].name) + "</td><td>" + esc(r[2]) + "</td><td>" + esc(r[3]) + "</td><td>" + esc(r[6]) + "</td><td>" + esc(r[7]) + "</td><td>" + esc(r[4]) + "</td><td class=\"v-" + esc(r[5]) + "\">" + esc(r[5]) + "</td><td>" + esc(r[8]) + "</td><td>" + (r[9] == null ? "-" : esc(r[9].toPrecision(3))) + "</td><td>" + esc((r[10] || []).join(", ")) + "</td></tr>";
  function renderMore() {
    if (rendered >= matches.length) return;
    const next = matches.slice(rendered, rendered + CHUNK);
    body.insertAdjacentHTML("beforeend", next.map(rowHtml).join(""));
    rendered += next.length;
  }

  function renderList() {
    const run = $("f-run").value, verdict = $("f-verdict").value, family = $("f-family").value, event = $("f-event").value;
    const text = $("f-text").value.trim(), changed = $("f-changed").value;
    // A trial passes the changed filter when its scenario's verdict on that metric (any
    // metric for "any") differs between the runs where it is valid.
    const changedOk = (r) => !changed || (changed === "any" ? (r[10] || []).length > 0 : (r[10] || []).includes(changed));
    matches = index.filter((r) => !((run && String(r[0]) !== run) || (verdict && r[5] !== verdict) || (family && r[3] !== family) || (event && r[4] !== event) || (text && !r[2].includes(text)) || !changedOk(r)));
    body.innerHTML = "";
    rendered = 0;
    renderMore();
    $("f-count").textContent = matches.length + " of " + index.length + " trials";
  }
  const wrap = document.querySelector(".trials-wrap");
  wrap.addEventListener("scroll", () => {
    if (wrap.scrollTop + wrap.clientHeight > wrap.scrollHeight - 200) renderMore();
  });

  function highlight(text, canaries) {
    let html = esc(text);
    for (const c of canaries) {
      if (!c) continue;
      html = html.split(esc(c)).join("<mark>" + esc(c) + "</mark>");
    }
    return html;
  }

  function eventHtml(e, canaries) {
    const pre = (t) => "<pre>" + highlight(t, canaries) + "</pre>";
    const k = "<span class=\"k\">" + esc(e.type.replace("_", " ")) + "</span>";
    switch (e.type) {
      case "delivery":
        return k + (e.notice ? "platform notice" : "from " + esc(e.speaker)) + " in " + esc(e.community) + pre(e.text);
      case "model_call": {
        const tools = (e.tool_calls || []).map((t) => "<div>tool call <b>" + esc(t.name) + "</b>" + pre(t.arguments) + "</div>").join("");
        return "<details><summary>" + k + esc(e.messages) + " messages in, " + esc(e.input_tokens) + " / " + esc(e.output_tokens) + " tokens, " + esc(e.latency_ms || 0) + " ms" + (e.error ? " <b>error</b>" : "") + "</summary>" +
          "<div>last message (" + esc(e.last_role) + ")" + pre(e.last || "") + "</div>" + (e.response ? "<div>response" + pre(e.response) + "</div>" : "") + tools + (e.error ? pre(e.error) : "") + "</details>";
      }
      case "tool_call":
        return k + "<b>" + esc(e.tool) + "</b> in " + esc(e.community) + (e.is_error ? " (error)" : "") + pre(e.arguments) + "<div>result</div>" + pre(e.result);
      case "object_served":
        return k + esc(e.object) + " via " + esc(e.via);
      case "effect":
        return k + "in " + esc(e.community) + pre(e.effect);
      case "reply":
        return k + "in " + esc(e.community) + pre(e.text);
      case "guard_decision":
        return k + "layer " + esc(e.layer) + ", " + esc(e.point) + ": <b>" + esc(e.decision) + "</b> " + esc(e.action) + " of " + esc(e.object) + " to " + esc(e.destination) + (e.enforced === false ? " (shadow)" : "") + " <small>" + esc((e.policies || []).join(", ")) + (e.errors && e.errors.length ? " errors: " + esc(e.errors.join("; ")) : "") + "</small>";
      case "workspace_view":
        return k + "view of the workspace in " + esc(e.community) + ": " + ((e.withheld || []).length ? (e.withheld || []).map((w) => esc(w.path) + " withheld (" + esc((w.labels || []).join(", ")) + ")").join("; ") : "nothing withheld");
      case "workspace_writes":
        return k + "writes in " + esc(e.community) + ": " + ((e.written || []).map((w) => esc(w.path) + " carries " + esc((w.labels || []).join(", ") || "no label")).join("; ") || "none") + ((e.reverted || []).length ? "; <b>undone</b>: " + esc(e.reverted.join(", ")) : "");
      case "harness_output":
        return "<details><summary>" + k + esc(e.source) + "</summary>" + pre(e.text) + "</details>";
      case "infra":
        return k + esc(e.cause);
      case "rewrite":
        return k + "of " + esc(e.speaker) + " (" + esc(e.site) + ") by " + esc(e.by) + ", attempt " + esc((e.attempt || 0) + 1) +
          (e.rejected ? ": <b>rejected</b> (" + esc(e.rejected) + ": " + esc(e.detail) + "), the seed delivered" + pre(e.proposed || "") : "") +
          "<div>seed</div>" + pre(e.seed) + (e.rejected ? "" : "<div>delivered</div>" + pre(e.text));
      default:
        return k + pre(e.raw || "");
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
    const out = [];
    out.push("<h3 id=\"trace-title\">" + esc(runs[r].name) + " " + esc(entry ? entry[2] : "") + ": <span class=\"v-" + esc(v.class) + "\">" + esc(v.class) + "</span></h3>");
    out.push("<p>" + esc(runTitle(r)) + " &middot; PVR " + v.pvr + ", PVR all " + (v.pvr_all == null ? v.pvr : v.pvr_all) + ", CCPVR " + v.ccpvr + ", BCR " + v.bcr + ", STCR " + v.stcr + (v.stale_state ? ", stale state" : "") + (v.cause ? " &middot; " + esc(v.cause) : "") + "</p>");
    const ev = [];
    for (const x of v.violations || []) ev.push("<li>turn " + esc(x.turn) + ": <mark>" + esc(x.canary) + "</mark> of " + esc(x.object) + " reached " + esc(x.destination) + (x.audience && x.audience.length ? " (" + esc(x.audience.join(", ")) + ")" : "") + " by " + esc(x.carrier) + (x.effect ? " (" + esc(x.effect) + ")" : "") + (x.scored === false ? ", outside the scored action" : "") + (x.cross_community ? ", cross-community" : "") + (x.after_event ? ", after the event" : "") + "</li>");
    if (v.failure_class) ev.push("<li>failure class <b>" + esc(v.failure_class.class) + "</b>: " + esc((v.failure_class.evidence || []).join(" | ")) + "</li>");
    for (const g of v.goal_failures || []) ev.push("<li>goal check failed: " + esc(g) + "</li>");
    for (const g of v.evidence_gaps || []) ev.push("<li>evidence gap: " + esc(g) + "</li>");
    for (const p of d.problems || []) ev.push("<li>trace problem: " + esc(p) + "</li>");
    ev.push("<li>judge: " + esc(typeof v.judge === "string" ? v.judge : JSON.stringify(v.judge)) + "</li>");
    out.push("<ul class=\"evidence\">" + ev.join("") + "</ul>");
    let turn = null;
    for (const e of d.events) {
      if (e.turn !== turn) { turn = e.turn; out.push("<div class=\"turn\">turn " + esc(turn == null ? "-" : turn) + "</div>"); }
      out.push("<div class=\"ev ev-" + esc(e.type) + "\">" + eventHtml(e, canaries) + "</div>");
    }
    view.innerHTML = out.join("");
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
