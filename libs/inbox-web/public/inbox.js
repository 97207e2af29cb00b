// The inbox page: plain DOM, no framework, no build step. The server pushes the whole inbox as a
// server-sent `state` event on every change; cards are kept by approval id so a reason being typed
// survives a refresh. Every value from the server is set as text, never parsed as HTML.
"use strict";

(function () {
  /** Card fields this page lays out itself; any other field a card carries is listed under "More". */
  const LAID_OUT = new Set([
    "approvalId", "callId", "domain", "tool", "title", "grade", "principal", "mode", "argsHash", "argsPreview",
    "reason", "requestedAt", "expiresAt", "approvers", "description", "intent", "args", "flags", "riskReasons",
    "onBehalfOf", "actsAs", "noLiveExecutor", "preview", "summary", "sessionGrant",
  ]);

  const $ = (id) => document.getElementById(id);
  const els = {
    person: $("person"), live: $("live"), banner: $("banner"), cards: $("cards"), empty: $("empty"),
    count: $("pending-count"), history: $("history"), historyEmpty: $("history-empty"), help: $("help"),
    helpToggle: $("help-toggle"), toast: $("toast"), sessions: $("sessions"), sessionsBox: $("sessions-box"),
  };

  let session = null; // { person, csrf, actions: [{ kind, label, key, tone, asks }] }
  let state = { pending: [], history: [] };
  let selectedId = null;
  const cardEls = new Map(); // approvalId -> element
  let firstState = true;

  // ---- small DOM helpers ----------------------------------------------------------------------
  const { el } = window.wardenDom;
  const humanKey = (k) => k.replace(/([a-z0-9])([A-Z])/g, (_, a, b) => `${a} ${b.toLowerCase()}`).replace(/[_-]+/g, " ").replace(/^./, (c) => c.toUpperCase());
  const isPlain = (v) => v === null || ["string", "number", "boolean"].includes(typeof v);

  function valueNode(v) {
    if (isPlain(v)) return el("span", { text: v === null ? "—" : String(v) });
    if (Array.isArray(v) && v.every(isPlain)) {
      return v.length === 0 ? el("span", { class: "muted", text: "none" }) : el("span", { class: "chips" }, ...v.map((x) => el("span", { class: "chip", text: String(x) })));
    }
    return el("pre", { class: "json", text: JSON.stringify(v, null, 2) });
  }

  function clock(iso) {
    const d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }
  function span(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
    const h = Math.floor(m / 60);
    return h < 48 ? `${h}h ${String(m % 60).padStart(2, "0")}m` : `${Math.floor(h / 24)}d`;
  }

  /** The args as the person should read them: the full args when the card has them, else the preview, pretty when it parses. */
  function argsText(card) {
    if (card.args !== undefined) return JSON.stringify(card.args, null, 2);
    try {
      return JSON.stringify(JSON.parse(card.argsPreview), null, 2);
    } catch {
      return card.argsPreview;
    }
  }
  function argsValue(card) {
    if (card.args !== undefined) return card.args;
    try {
      return JSON.parse(card.argsPreview);
    } catch {
      return {};
    }
  }

  const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const isRecord = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

  /**
   * A dry run's answer. One that says `{ before, after }` (docs/approvals.md) is drawn as a table of
   * the fields, the changed ones marked; its other fields (an id, a note) follow; anything else is shown as it came.
   */
  function previewBody(data) {
    if (!isRecord(data) || !isRecord(data.before) || !isRecord(data.after)) return el("pre", { class: "json", text: JSON.stringify(data, null, 2) });
    const keys = [...new Set([...Object.keys(data.before), ...Object.keys(data.after)])];
    const cell = (obj, k) => (k in obj ? valueNode(obj[k]) : el("span", { class: "muted", text: "(none)" }));
    const rows = keys.map((k) => {
      const changed = !sameValue(data.before[k], data.after[k]);
      return el("tr", { class: changed ? "changed" : "same", "data-field": k },
        el("th", { scope: "row", text: humanKey(k) }), el("td", { class: "before" }, cell(data.before, k)), el("td", { class: "after" }, cell(data.after, k)));
    });
    // a `changed` list says what the table already marks
    const rest = Object.keys(data).filter((k) => k !== "before" && k !== "after" && k !== "changed");
    const changedCount = rows.filter((r) => r.classList.contains("changed")).length;
    return el("div", { class: "diff" },
      el("p", { class: "diff-count", text: changedCount === 0 ? "Nothing would change." : `${changedCount} of ${keys.length} field${keys.length === 1 ? "" : "s"} would change.` }),
      el("table", { class: "diff-table" },
        el("thead", {}, el("tr", {}, el("th", { text: "" }), el("th", { scope: "col", text: "Now" }), el("th", { scope: "col", text: "After" }))),
        el("tbody", {}, ...rows)),
      rest.length === 0 ? null : el("dl", { class: "facts diff-rest" }, ...rest.flatMap((k) => [el("dt", { text: humanKey(k) }), el("dd", {}, valueNode(data[k]))])),
    );
  }

  function whoMayDecide(a) {
    if (a && typeof a === "object" && !Array.isArray(a) && "requesterMayConfirm" in a && Object.keys(a).every((k) => k === "human" || k === "requesterMayConfirm")) {
      return el("span", { text: a.requesterMayConfirm ? "the requester, or a person who approves this grade" : "a person who approves this grade" });
    }
    return valueNode(a);
  }

  // ---- one card -------------------------------------------------------------------------------
  function renderCard(card) {
    const facts = el("dl", { class: "facts" },
      el("dt", { text: "Requested by" }), el("dd", {}, el("strong", { text: card.principal }), el("span", { class: "muted", text: ` · ${card.mode} mode` })),
      ...(typeof card.onBehalfOf === "string" && card.onBehalfOf !== card.principal ? [el("dt", { text: "On behalf of" }), el("dd", { class: "on-behalf-of", text: card.onBehalfOf })] : []),
      ...(card.actsAs === "caller" || card.actsAs === "service" ? [el("dt", { text: "Credentials" }), el("dd", { class: "acts-as", text: card.actsAs === "caller" ? "the caller's own (acts as them)" : "the service's own" })] : []),
      el("dt", { text: "Why it waits" }), el("dd", { class: "policy-reason", text: card.reason }),
      el("dt", { text: "Who may decide" }), el("dd", {}, whoMayDecide(card.approvers)),
      el("dt", { text: "Asked at" }), el("dd", { text: `${clock(card.requestedAt)}` }),
    );

    let intent = null;
    if (card.intent !== undefined) {
      const body = typeof card.intent === "string" ? el("p", { text: card.intent })
        : card.intent && typeof card.intent === "object" && !Array.isArray(card.intent)
          ? el("dl", {}, ...Object.entries(card.intent).flatMap(([k, v]) => [el("dt", { text: humanKey(k) }), el("dd", {}, valueNode(v))]))
          : valueNode(card.intent);
      intent = el("section", { class: "intent" }, el("h4", { text: "What the agent wants" }), body);
    }

    let flags = null;
    if (card.flags !== undefined) {
      const names = Array.isArray(card.flags) ? card.flags.map(String)
        : card.flags && typeof card.flags === "object" ? Object.entries(card.flags).filter(([, v]) => v === true).map(([k]) => k) : [String(card.flags)];
      if (names.length > 0) flags = el("div", { class: "flags" }, ...names.map((n) => humanKey(n).toLowerCase()).map((n) => el("span", { class: `flag flag-${n.replace(/[^a-z]+/g, "-")}`, text: n })));
    }

    let preview = null;
    if (card.preview && typeof card.preview === "object") {
      preview = el("section", { class: "preview" }, el("h4", { text: "What it would do (the tool's own dry run)" }),
        card.preview.error ? el("p", { class: "muted", text: `No preview: ${card.preview.error.code}: ${card.preview.error.message}` })
          : previewBody(card.preview.data));
    }

    let risks = null;
    if (Array.isArray(card.riskReasons) && card.riskReasons.length > 0) {
      risks = el("section", { class: "risks" }, el("h4", { text: "Risk" }), el("ul", {}, ...card.riskReasons.map((r) => el("li", {}, valueNode(r)))));
    }

    // what a person deciding rarely needs (the machine's vocabulary, ids, a text written for the
    // model when the tool gives a summary for people) is folded, so the decision stays in view
    const extra = Object.keys(card).filter((k) => !LAID_OUT.has(k));
    const more = extra.length === 0 ? null : el("dl", { class: "facts more" }, ...extra.flatMap((k) => [el("dt", { text: humanKey(k) }), el("dd", {}, valueNode(card[k]))]));
    const foldedDescription = card.summary !== undefined && card.description !== undefined;
    const details = el("details", { class: "machine" }, el("summary", { text: "Details" }),
      foldedDescription ? el("p", { class: "description", text: String(card.description) }) : null,
      more,
      el("dl", { class: "facts ids" },
        el("dt", { text: "Call" }), el("dd", {}, el("a", { class: "call-id", href: timelineHref(card.callId), text: card.callId })),
        el("dt", { text: "Args hash" }), el("dd", { class: "args-hash", text: card.argsHash })),
    );

    // only what the policy would accept: no "for session" on a card that can never have one
    const offered = (session ? session.actions : []).filter((a) => a.asks !== "session" || card.sessionGrant?.allowed !== false);
    const buttons = offered.map((a) =>
      el("button", {
        type: "button", class: `btn btn-${a.tone}`, "data-action": a.kind, "aria-keyshortcuts": a.key,
        onclick: (ev) => { ev.stopPropagation(); select(card.approvalId, false); openPanel(card.approvalId, a.kind); },
      }, el("kbd", { text: a.key.toUpperCase() }), ` ${a.label}`));

    const node = el("article", { class: "card", tabindex: "0", role: "listitem", "data-approval-id": card.approvalId, "aria-label": `${card.title} (${card.tool}) asked by ${card.principal}` },
      el("header", { class: "card-head" },
        el("span", { class: `grade grade-${card.grade}`, text: card.grade }),
        el("div", { class: "heading" },
          el("h3", { class: "title", text: card.title }),
          el("code", { class: "tool", text: `${card.tool}` }),
        ),
        el("span", { class: "expiry", "data-expires": card.expiresAt }),
      ),
      card.summary !== undefined ? el("p", { class: "summary", text: String(card.summary) }) : null,
      card.noLiveExecutor === true ? el("p", { class: "no-executor", role: "note", text: "No executor of this domain is running: a grant waits until one starts." }) : null,
      card.description !== undefined && !foldedDescription ? el("p", { class: "description", text: String(card.description) }) : null,
      flags,
      intent,
      el("div", { class: "card-body" },
        facts,
        el("section", { class: "args" }, el("h4", { text: "Arguments" }), el("pre", { class: "json", text: argsText(card) })),
      ),
      preview,
      risks,
      details,
      // sticky: a card taller than the window keeps its actions in view
      el("footer", { class: "card-foot" },
        el("div", { class: "actions" }, ...buttons),
      ),
      el("form", {
        class: "panel", hidden: true,
        onsubmit: (ev) => { ev.preventDefault(); submitPanel(card.approvalId); },
        // what the person types next answers the error shown, so it goes
        oninput: (ev) => { const e = ev.currentTarget.querySelector(".panel-error"); if (e) e.hidden = true; },
      }),
    );
    node.addEventListener("click", () => select(card.approvalId, false));
    node.addEventListener("focus", () => select(card.approvalId, false));
    node._card = card;
    return node;
  }

  // ---- the inline decision panel --------------------------------------------------------------
  function specOf(kind) {
    return session && session.actions.find((a) => a.kind === kind);
  }

  function openPanel(id, kind) {
    const node = cardEls.get(id);
    const spec = specOf(kind);
    if (!node || !spec || node.classList.contains("expired")) return;
    // the keyboard reaches every action: say why this card has none for the session
    if (spec.asks === "session" && node._card.sessionGrant?.allowed === false) return void toast(`Not for the session: ${node._card.sessionGrant.why}`);
    closePanels();
    const card = node._card;
    const form = node.querySelector("form.panel");
    form.replaceChildren();
    form.dataset.kind = kind;
    form.className = `panel panel-${spec.tone}`;
    const reasonId = `reason-${id}`;
    const required = spec.asks === "reason";
    if (spec.asks === "args") {
      form.append(el("label", { for: `args-${id}`, text: "Arguments to run (JSON; Ctrl+Enter to confirm)" }),
        el("textarea", { id: `args-${id}`, name: "args", rows: "8", spellcheck: "false", class: "mono" }));
      form.querySelector("textarea").value = JSON.stringify(argsValue(card), null, 2);
    }
    if (spec.asks === "session") form.append(sessionFields(id, card));
    form.append(
      el("label", { for: reasonId, text: required ? `Reason for ${card.principal} (required; the agent reads it)` : "Note (optional)" }),
      el("div", { class: "panel-row" },
        el("input", { id: reasonId, name: "reason", type: "text", autocomplete: "off", maxlength: "2000", "aria-required": required ? "true" : null, placeholder: required ? "e.g. wrong customer, ask them first" : "" }),
        el("button", { type: "submit", class: `btn btn-${spec.tone} solid` }, `${spec.label}`, el("span", { class: "hint", text: " ⏎" })),
        el("button", { type: "button", class: "btn btn-neutral", onclick: closePanels }, "Cancel", el("span", { class: "hint", text: " Esc" })),
      ),
      el("p", { class: "panel-error", role: "alert", hidden: true }),
    );
    form.hidden = false;
    node.classList.add("deciding");
    (spec.asks === "args" ? form.querySelector("textarea") : spec.asks === "session" ? form.querySelector("select") : form.querySelector("input[name=reason]")).focus();
  }

  const SESSION_LENGTHS = [["900", "15 minutes"], ["3600", "1 hour"], ["28800", "8 hours"], ["86400", "24 hours"]];

  /** How long, and which args later calls must keep (each checked one: the same value); all kept unless the person frees one. */
  function sessionFields(id, card) {
    const args = argsValue(card);
    const names = args && typeof args === "object" && !Array.isArray(args) ? Object.keys(args) : [];
    const select = el("select", { id: `ttl-${id}`, name: "ttl" }, ...SESSION_LENGTHS.map(([v, t]) => el("option", { value: v, selected: v === "3600", text: t })));
    return el("div", { class: "session-fields" },
      el("p", { class: "session-what", text: `Later calls of ${card.tool} by ${card.principal} (${card.mode} mode) run without asking you, while they keep the checked arguments as they are here and add none of their own.` }),
      el("label", { for: `ttl-${id}`, text: "For" }), select,
      el("fieldset", { class: "keep" }, el("legend", { text: "Later calls must keep" }),
        ...(names.length === 0 ? [el("p", { class: "muted", text: "This tool takes no arguments." })] : names.map((n) =>
          el("label", { class: "keep-arg" },
            el("input", { type: "checkbox", name: "keep", value: n, checked: true }),
            el("code", { text: n }), el("span", { class: "muted", text: ` = ${JSON.stringify(args[n])}` }))))),
    );
  }

  function sessionOf(form, card) {
    const args = argsValue(card);
    const constraints = {};
    for (const box of form.querySelectorAll("input[name=keep]:checked")) constraints[box.value] = { equals: args[box.value] };
    // closed: a later call may not add an argument this one does not have (force, cc, …)
    return { ttlSeconds: Number(form.querySelector("select[name=ttl]").value), args: constraints, closed: true };
  }

  function closePanels() {
    for (const node of cardEls.values()) {
      const form = node.querySelector("form.panel");
      if (!form.hidden) {
        form.hidden = true;
        form.replaceChildren();
        node.classList.remove("deciding");
      }
    }
  }

  function openPanelNode() {
    for (const node of cardEls.values()) if (!node.querySelector("form.panel").hidden) return node;
    return null;
  }

  async function submitPanel(id) {
    const node = cardEls.get(id);
    if (!node) return;
    const form = node.querySelector("form.panel");
    const kind = form.dataset.kind;
    const spec = specOf(kind);
    const errorP = form.querySelector(".panel-error");
    const showError = (text) => { errorP.textContent = text; errorP.hidden = false; };
    const reason = form.querySelector("input[name=reason]").value.trim();
    if (spec.asks === "reason" && reason === "") return showError("Type the reason first: the agent gets it in its result.");
    const body = { kind, approvalId: id, argsHash: node._card.argsHash };
    if (reason !== "") body.reason = reason;
    if (spec.asks === "args") {
      try {
        body.args = JSON.parse(form.querySelector("textarea").value);
      } catch (e) {
        return showError(`The arguments are not JSON: ${e.message}`);
      }
    }
    if (spec.asks === "session") body.session = sessionOf(form, node._card);
    for (const b of form.querySelectorAll("button, input, textarea, select")) b.disabled = true;
    const answer = await postAction(body);
    if (answer.ok) {
      toast(`${spec.label === "Deny" ? "Denied" : spec.label === "Approve" ? "Approved" : spec.label}: ${node._card.title} — call ${answer.value.callId}`);
      return; // the server's next state drops the card
    }
    for (const b of form.querySelectorAll("button, input, textarea, select")) b.disabled = false;
    showError(errorText(answer.error));
  }

  function errorText(error) {
    const refusal = error.details && error.details.refusal ? ` (${error.details.refusal})` : "";
    return `${error.code}${refusal}: ${error.message}`;
  }

  async function postAction(body) {
    try {
      const res = await fetch("/api/actions", {
        method: "POST",
        headers: { "content-type": "application/json", "x-warden-csrf": session.csrf },
        body: JSON.stringify(body),
        credentials: "same-origin",
      });
      return await res.json();
    } catch (e) {
      return { ok: false, error: { code: "UNAVAILABLE", message: `the inbox did not answer (${e.message})` } };
    }
  }

  // ---- session grants -------------------------------------------------------------------------
  function renderSessions(sessions) {
    els.sessions.replaceChildren(...sessions.map((g) =>
      el("li", { class: "s-item", "data-grant-id": g.grantId },
        el("div", { class: "s-top" }, el("strong", { text: g.tool }), el("span", { class: "s-until", text: `until ${clock(g.expiresAt)}` })),
        el("div", { class: "s-meta", text: `${g.principal} · ${g.mode} mode · granted by ${g.approver}` }),
        el("div", { class: "s-covers", text: `with ${g.covers}` }),
        el("button", {
          type: "button", class: "btn btn-deny", "data-action": "revoke-session",
          onclick: async (ev) => {
            ev.currentTarget.disabled = true;
            const answer = await postAction({ kind: "revoke-session", grantId: g.grantId });
            if (answer.ok) toast(`Revoked the session grant for ${g.tool}: later calls ask you again`);
            else { ev.currentTarget.disabled = false; toast(errorText(answer.error)); }
          },
        }, "Revoke"),
      )));
    els.sessionsBox.hidden = sessions.length === 0;
  }

  // ---- selection and keys ---------------------------------------------------------------------
  function ids() {
    return [...els.cards.children].map((n) => n.dataset.approvalId);
  }

  function select(id, focus) {
    if (id === null) return;
    selectedId = id;
    for (const [k, node] of cardEls) {
      node.classList.toggle("selected", k === id);
      node.setAttribute("aria-selected", k === id ? "true" : "false");
    }
    const node = cardEls.get(id);
    if (focus && node) {
      node.focus({ preventScroll: true });
      node.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  }

  function move(step) {
    const list = ids();
    if (list.length === 0) return;
    const at = list.indexOf(selectedId);
    const next = at < 0 ? 0 : Math.min(list.length - 1, Math.max(0, at + step));
    select(list[next], true);
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey && ev.key === "Enter" && ev.target.tagName === "TEXTAREA") {
      ev.preventDefault();
      const node = ev.target.closest("article.card");
      if (node) submitPanel(node.dataset.approvalId);
      return;
    }
    if (ev.key === "Escape") {
      if (!els.help.hidden) return void (els.help.hidden = true);
      const open = openPanelNode();
      closePanels();
      if (open) open.focus();
      return;
    }
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(ev.target.tagName);
    if (typing) return;
    if (ev.key === "?") return void (els.help.hidden = !els.help.hidden);
    if (ev.key === "j" || ev.key === "ArrowDown") { ev.preventDefault(); return move(1); }
    if (ev.key === "k" || ev.key === "ArrowUp") { ev.preventDefault(); return move(-1); }
    const spec = session && session.actions.find((a) => a.key === ev.key.toLowerCase());
    if (spec && selectedId !== null && cardEls.has(selectedId)) {
      ev.preventDefault();
      openPanel(selectedId, spec.kind);
      return;
    }
    if (!spec && ev.key === "c") location.assign("/calls");
  });
  els.helpToggle.addEventListener("click", () => (els.help.hidden = !els.help.hidden));

  // ---- applying a state -----------------------------------------------------------------------
  function applyState(next) {
    const before = new Set(cardEls.keys());
    const wanted = next.pending.map((c) => c.approvalId);
    const hadFocus = document.activeElement && els.cards.contains(document.activeElement);
    // drop the cards that left; say so if the person was deciding one
    for (const id of before) {
      if (wanted.includes(id)) continue;
      const node = cardEls.get(id);
      if (!node.querySelector("form.panel").hidden && !next.history.some((h) => h.approvalId === id && h.by === session.person)) {
        toast(`${node._card.title} left your inbox before you decided it`);
      }
      node.remove();
      cardEls.delete(id);
    }
    // existing nodes stay where they are (moving one would blur a reason being typed): only new ones are inserted
    let cursor = els.cards.firstElementChild;
    for (const card of next.pending) {
      let node = cardEls.get(card.approvalId);
      if (!node) {
        node = renderCard(card);
        if (!firstState) node.classList.add("fresh");
        cardEls.set(card.approvalId, node);
      }
      if (node === cursor) cursor = cursor.nextElementSibling;
      else els.cards.insertBefore(node, cursor);
    }
    firstState = false;
    state = next;
    const list = ids();
    if (selectedId === null || !cardEls.has(selectedId)) {
      const oldIndex = Math.max(0, [...before].indexOf(selectedId));
      selectedId = list.length ? list[Math.min(oldIndex, list.length - 1)] : null;
      select(selectedId, hadFocus || document.activeElement === document.body);
    } else {
      select(selectedId, false);
    }
    els.count.textContent = String(list.length);
    els.count.classList.toggle("zero", list.length === 0);
    els.empty.hidden = list.length > 0;
    document.title = list.length ? `(${list.length}) Warden inbox — ${next.person}` : `Warden inbox — ${next.person}`;
    renderHistory(next.history);
    renderSessions(next.sessions || []);
    renderStatus(next.status);
    tick();
  }

  // the call's timeline: the person's own, or one they decide (the inbox asks the approver for it)
  const timelineHref = (callId) => `/calls/${encodeURIComponent(callId)}`;

  const OUTCOME_TEXT = { granted: "Approved", denied: "Denied", expired: "Expired", gone: "Left the inbox" };
  function renderHistory(history) {
    els.history.replaceChildren(...history.map((h) =>
      el("li", { class: `h-item h-${h.outcome}`, "data-approval-id": h.approvalId },
        el("div", { class: "h-top" },
          el("span", { class: "h-outcome", text: OUTCOME_TEXT[h.outcome] || h.outcome }),
          el("span", { class: "h-time", text: clock(h.at) }),
        ),
        el("div", { class: "h-title" }, el("strong", { text: h.title }), " ", el("code", { text: h.tool })),
        el("div", { class: "h-meta", text: `asked by ${h.principal}${h.by ? ` · decided by ${h.by}` : h.outcome === "gone" ? " · decided elsewhere or cancelled" : ""}` }),
        h.reason ? el("blockquote", { class: "h-reason", text: h.reason }) : null,
        el("div", { class: "h-ids" }, el("a", { class: "h-timeline", href: timelineHref(h.callId), text: "timeline" }), ` · call ${h.callId}`),
      )));
    els.historyEmpty.hidden = history.length > 0;
  }

  function renderStatus(status) {
    if (status.ok) {
      els.banner.hidden = true;
      return;
    }
    els.banner.hidden = false;
    els.banner.textContent = `Cannot read your inbox since ${clock(status.since)}: ${status.error.code}: ${status.error.message}. Showing what was last known.`;
  }

  function tick() {
    const now = Date.now();
    for (const node of cardEls.values()) {
      const exp = node.querySelector(".expiry");
      const left = Date.parse(exp.dataset.expires) - now;
      const expired = left <= 0;
      exp.textContent = expired ? "expired" : `expires in ${span(left)}`;
      exp.classList.toggle("urgent", !expired && left < 60_000);
      if (expired && !node.classList.contains("expired")) {
        node.classList.add("expired");
        for (const b of node.querySelectorAll(".actions button")) b.disabled = true;
      }
    }
  }
  setInterval(tick, 1000);

  let toastTimer = null;
  function toast(text) {
    els.toast.textContent = text;
    els.toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (els.toast.hidden = true), 6000);
  }

  function setLive(which, text) {
    els.live.dataset.state = which;
    els.live.textContent = text;
  }

  // ---- start ----------------------------------------------------------------------------------
  async function start() {
    let answer;
    try {
      answer = await (await fetch("/api/session", { credentials: "same-origin" })).json();
    } catch (e) {
      answer = { ok: false, error: { code: "UNAVAILABLE", message: e.message } };
    }
    if (!answer.ok) {
      els.banner.hidden = false;
      els.banner.textContent = `${answer.error.code}: ${answer.error.message}`;
      setLive("down", "not connected");
      return;
    }
    session = answer.value;
    els.person.textContent = session.person;
    const events = new EventSource("/api/events");
    events.addEventListener("open", () => setLive("live", "live"));
    events.addEventListener("error", () => {
      if (events.readyState !== EventSource.CLOSED) return setLive("down", "reconnecting…");
      // refused (the session ended, or a restarted inbox has a new token) or gone: the browser will not retry by itself
      setLive("down", "disconnected");
      els.banner.hidden = false;
      els.banner.textContent = "This page lost its inbox: its session ended after a time without use, or `warden inbox` stopped. Start `warden inbox` again and open the new URL it prints.";
    });
    events.addEventListener("state", (ev) => applyState(JSON.parse(ev.data)));
  }
  start();
})();
