// The Calls page: the person's own recent calls, newest first, refreshed every few seconds and at
// once when the inbox's live stream says something changed. Plain DOM, no build step. Every value
// from the server (call args are whatever a caller wrote) is set as text, never parsed as HTML.
"use strict";

(function () {
  const REFRESH_MS = 3000;
  const $ = (id) => document.getElementById(id);
  const els = {
    person: $("person"), live: $("live"), banner: $("banner"), table: $("calls"), rows: $("rows"), empty: $("empty"),
    count: $("calls-count"), total: $("calls-total"), pending: $("pending-count"), help: $("help"), helpToggle: $("help-toggle"),
  };
  let selectedId = null;
  let shown = "";
  let loading = null;
  let again = false;

  const { el } = window.wardenDom;

  function clock(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return iso;
    const today = new Date().toDateString() === d.toDateString();
    const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    return today ? time : `${d.toLocaleDateString([], { month: "short", day: "numeric" })} ${time}`;
  }

  const timelineHref = (callId) => `/calls/${encodeURIComponent(callId)}`;

  function renderRow(r) {
    const state = el("td", { class: "state-cell" },
      el("span", { class: `state tone-${r.tone}`, "data-status": r.status, text: r.state }),
      r.approver ? el("span", { class: "by", text: ` by ${r.approver}` }) : null,
      r.error ? el("div", { class: "why", text: r.error }) : null);
    return el("tr", { class: `call-row tone-${r.tone}`, "data-call-id": r.callId, "data-status": r.status },
      el("td", { class: "time", title: r.requestedAt, text: clock(r.requestedAt) }),
      el("td", { class: "tool" }, el("a", { href: timelineHref(r.callId), text: r.tool, "aria-label": `${r.tool}, ${r.state}: open the timeline of call ${r.callId}` }),
        el("div", { class: "call-id", text: r.callId })),
      el("td", { class: "principal", text: r.principal }),
      el("td", { class: "mode", text: r.mode }),
      state,
      el("td", { class: "duration", text: r.duration }),
      el("td", { class: "args" }, el("code", { title: r.argsPreview, text: r.argsPreview })));
  }

  function render(value) {
    // a refresh that changed nothing leaves the rows (and the focus) alone
    const now = JSON.stringify([value.person, value.total, value.rows]);
    if (now === shown) return;
    shown = now;
    els.person.textContent = value.person;
    document.title = `Warden calls — ${value.person}`;
    const focusedId = document.activeElement && document.activeElement.closest ? document.activeElement.closest("tr.call-row")?.dataset.callId : undefined;
    els.rows.replaceChildren(...value.rows.map(renderRow));
    els.table.hidden = value.rows.length === 0;
    els.empty.hidden = value.rows.length > 0;
    els.count.textContent = String(value.rows.length);
    els.count.classList.toggle("zero", value.rows.length === 0);
    els.total.textContent = value.total > value.rows.length ? `the newest ${value.rows.length} of ${value.total}` : "";
    const ids = value.rows.map((r) => r.callId);
    if (!ids.includes(selectedId)) selectedId = ids.length > 0 ? ids[0] : null;
    // a refresh keeps the row the person was on, and the focus on it
    select(selectedId, focusedId !== undefined);
  }

  async function load() {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      do {
        again = false;
        let answer;
        try {
          answer = await (await fetch("/api/calls", { credentials: "same-origin" })).json();
        } catch (e) {
          answer = { ok: false, error: { code: "UNAVAILABLE", message: `the inbox did not answer (${e.message})` } };
        }
        if (answer.ok) {
          els.banner.hidden = true;
          render(answer.value);
        } else {
          els.banner.hidden = false;
          els.banner.textContent = `Cannot read your calls: ${answer.error.code}: ${answer.error.message}. Showing what was last known.`;
        }
      } while (again);
    })().finally(() => (loading = null));
    return loading;
  }

  // ---- selection and keys ---------------------------------------------------------------------
  function rowsNow() {
    return [...els.rows.querySelectorAll("tr.call-row")];
  }

  function select(id, focus) {
    for (const row of rowsNow()) {
      const on = row.dataset.callId === id;
      row.classList.toggle("selected", on);
      row.setAttribute("aria-selected", on ? "true" : "false");
      if (on && focus) {
        row.querySelector("a").focus({ preventScroll: true });
        row.scrollIntoView({ block: "nearest" });
      }
    }
  }

  function move(step) {
    const ids = rowsNow().map((r) => r.dataset.callId);
    if (ids.length === 0) return;
    const at = ids.indexOf(selectedId);
    selectedId = ids[at < 0 ? 0 : Math.min(ids.length - 1, Math.max(0, at + step))];
    select(selectedId, true);
  }

  els.rows.addEventListener("focusin", (ev) => {
    const row = ev.target.closest("tr.call-row");
    if (row) {
      selectedId = row.dataset.callId;
      select(selectedId, false);
    }
  });
  els.rows.addEventListener("click", (ev) => {
    const row = ev.target.closest("tr.call-row");
    if (row && !ev.target.closest("a")) location.assign(timelineHref(row.dataset.callId));
  });

  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") return void (els.help.hidden = true);
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(ev.target.tagName)) return;
    if (ev.key === "?") return void (els.help.hidden = !els.help.hidden);
    if (ev.key === "j" || ev.key === "ArrowDown") { ev.preventDefault(); return move(1); }
    if (ev.key === "k" || ev.key === "ArrowUp") { ev.preventDefault(); return move(-1); }
    if (ev.key === "r") return void load();
    if (ev.key === "a") return location.assign("/");
    // Enter on the focused link opens it already; from anywhere else Enter or o opens the selected call
    if ((ev.key === "Enter" && ev.target.tagName !== "A") || ev.key === "o") {
      if (selectedId !== null) { ev.preventDefault(); location.assign(timelineHref(selectedId)); }
    }
  });
  els.helpToggle.addEventListener("click", () => (els.help.hidden = !els.help.hidden));

  function setLive(which, text) {
    els.live.dataset.state = which;
    els.live.textContent = text;
  }

  // ---- start ----------------------------------------------------------------------------------
  async function start() {
    await load();
    // the inbox's live stream: a change to the approvals is a cue that a call moved on
    const events = new EventSource("/api/events");
    events.addEventListener("open", () => setLive("live", "live"));
    events.addEventListener("error", () => setLive("down", events.readyState === EventSource.CLOSED ? "disconnected" : "reconnecting…"));
    events.addEventListener("state", (ev) => {
      const s = JSON.parse(ev.data);
      els.pending.textContent = String(s.pending.length);
      els.pending.classList.toggle("zero", s.pending.length === 0);
      load();
    });
    setInterval(() => {
      if (document.visibilityState === "visible") load();
    }, REFRESH_MS);
  }
  start();
})();
