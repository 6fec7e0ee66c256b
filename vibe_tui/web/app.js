// vibe-tui web view: follows the session's events (server-sent events) and turns clicks
// into the Session's doors (POST /message, /answer, /stop). It holds no agent state of
// its own: reloading the page replays every event and draws the same conversation.
//
// Safety: nothing from the model, a tool or the user is ever parsed as HTML. Every piece
// of text reaches the page through textContent / text nodes; the Markdown renderer builds
// its few elements (paragraphs, code, emphasis, lists, headings, http(s) links) with
// createElement. The page's Content-Security-Policy forbids inline script as a backstop.
// Text also passes through safe() or safeName() (the rules of vibe_tui/safe_text.py), so
// a bidi override cannot make a file name read as another one.
(() => {
  "use strict";

  const token = new URLSearchParams(location.search).get("token") || "";
  const RECONNECT_MS = 2000;

  // ---- text made inert: the rules of vibe_tui/safe_text.py ---------------------------

  // Escape sequences: CSI, string sequences (OSC, DCS, SOS, PM, APC) with their payload up
  // to BEL, ST or the end of the line, their 8-bit forms, and any other ESC sequence.
  const SEQUENCE = new RegExp([
    "\\x1b\\[[0-?]*[ -/]*[@-~]",
    "\\x1b[\\]PX^_][^\\x07\\x1b\\x9c\\n]*(?:\\x07|\\x1b\\\\|\\x9c)?",
    "\\x9b[0-?]*[ -/]*[@-~]",
    "[\\x90\\x98\\x9d\\x9e\\x9f][^\\x07\\x1b\\x9c\\n]*(?:\\x07|\\x1b\\\\|\\x9c)?",
    "\\x1b[ -/]*[0-~]?",
  ].join("|"), "g");
  // Every control but tab and newline: C0 (CR and ESC too), DEL, C1, bidi overrides and
  // isolates. LRM/RLM stay, as in the terminal.
  const CONTROLS = "\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u202a-\\u202e\\u2066-\\u2069";
  const SUSPECT = new RegExp(`[${CONTROLS}]`);
  const CONTROL = new RegExp(`[${CONTROLS}]`, "g");
  const NAME_CONTROL = new RegExp(`[\\t\\n${CONTROLS}]`, "g");
  const SHORT = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

  function escaped(char) {
    if (SHORT[char]) return SHORT[char];
    const code = char.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  }

  // Text from the model or a tool: escape sequences removed whole, other controls shown.
  function safe(text) {
    text = String(text);
    if (!SUSPECT.test(text)) return text;
    return text.replace(SEQUENCE, "").replace(/\r\n?/g, "\n").replace(CONTROL, escaped);
  }

  // A name, path or command the user decides on: nothing removed, every control shown
  // escaped (a command keeps its lines), so the name shown is the real one.
  function safeName(text, multiline = false) {
    return String(text).replace(multiline ? CONTROL : NAME_CONTROL, escaped);
  }

  // ---- small DOM helpers -----------------------------------------------------------

  const byId = (id) => document.getElementById(id);

  // Every text goes through safe(); a safeName() result has nothing left for it to change.
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = safe(text);
    return node;
  }

  function setText(node, text) {
    node.textContent = safe(text);
  }

  // ---- Markdown, built as DOM nodes --------------------------------------------------

  const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
  const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
  const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
  const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
  const QUOTE = /^\s{0,3}>\s?(.*)$/;
  // code span | **strong** | __strong__ | *em* | _em_ | [label](url)
  const INLINE = new RegExp([
    "(`+)([^`]|[^`][\\s\\S]*?[^`])\\1(?!`)",
    "\\*\\*(?=\\S)([\\s\\S]*?\\S)\\*\\*",
    "(?<!\\w)__(?=\\S)([\\s\\S]*?\\S)__(?!\\w)",
    "\\*(?=[^\\s*])([\\s\\S]*?[^\\s*])\\*",
    "(?<!\\w)_(?=[^\\s_])([\\s\\S]*?[^\\s_])_(?!\\w)",
    "\\[([^\\]\\n]+)\\]\\(\\s*([^)\\s]+)\\s*\\)",
  ].join("|"), "g");

  function startsBlock(line) {
    return FENCE.test(line) || HEADING.test(line) || RULE.test(line)
      || LIST_ITEM.test(line) || QUOTE.test(line);
  }

  function renderMarkdown(source) {
    const root = document.createDocumentFragment();
    const lines = safe(source).split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.trim()) { i++; continue; }
      const fence = line.match(FENCE);
      if (fence) { i = renderFence(lines, i, fence, root); continue; }
      const heading = line.match(HEADING);
      if (heading) {
        const h = el("h" + heading[1].length);
        appendInline(h, heading[2]);
        root.append(h);
        i++;
        continue;
      }
      if (RULE.test(line)) { root.append(el("hr")); i++; continue; }
      if (LIST_ITEM.test(line)) { i = renderList(lines, i, root); continue; }
      if (QUOTE.test(line)) {
        const quoted = [];
        while (i < lines.length && QUOTE.test(lines[i])) quoted.push(lines[i++].match(QUOTE)[1]);
        const quote = el("blockquote");
        quote.append(renderMarkdown(quoted.join("\n")));
        root.append(quote);
        continue;
      }
      const paragraph = [];
      do { paragraph.push(lines[i++]); } while (i < lines.length && lines[i].trim() && !startsBlock(lines[i]));
      const p = el("p");
      appendInline(p, paragraph.join("\n"));
      root.append(p);
    }
    return root;
  }

  function renderFence(lines, i, fence, root) {
    const body = [];
    i++;
    // An unclosed fence (text still streaming) runs to the end.
    while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
    const pre = el("pre", "code");
    const code = el("code", null, body.join("\n"));
    if (fence[2]) code.dataset.lang = fence[2];
    pre.append(code);
    root.append(pre);
    return i + 1;
  }

  function indentOf(line) {
    return line.length - line.trimStart().length;
  }

  function renderList(lines, i, root) {
    const first = lines[i].match(LIST_ITEM);
    const ordered = /\d/.test(first[2]);
    const base = first[1].length;
    const list = el(ordered ? "ol" : "ul");
    if (ordered && parseInt(first[2], 10) !== 1) list.start = parseInt(first[2], 10);
    let item = null;
    let text = [];
    const flush = () => {
      if (item && text.length) appendInline(item, text.join("\n"));
      text = [];
    };
    while (i < lines.length) {
      const line = lines[i];
      const match = line.match(LIST_ITEM);
      if (match && match[1].length <= base + 1 && /\d/.test(match[2]) === ordered) {
        flush();
        item = el("li");
        list.append(item);
        text = [match[3]];
        i++;
      } else if (line.trim() && indentOf(line) > base && item) {
        if (!match) { text.push(line.trim()); i++; continue; }
        // A nested block: everything indented deeper than this list, rendered on its own.
        flush();
        const nested = [];
        while (i < lines.length && lines[i].trim() && indentOf(lines[i]) > base) nested.push(lines[i++]);
        const cut = Math.min(...nested.map(indentOf));
        item.append(renderMarkdown(nested.map((l) => l.slice(cut)).join("\n")));
      } else if (!line.trim() && i + 1 < lines.length && LIST_ITEM.test(lines[i + 1])
                 && lines[i + 1].match(LIST_ITEM)[1].length <= base + 1) {
        i++;  // a blank line between items keeps the list going
      } else {
        break;
      }
    }
    flush();
    root.append(list);
    return i;
  }

  function appendInline(parent, text) {
    let last = 0;
    for (const m of text.matchAll(INLINE)) {
      if (m.index > last) parent.append(text.slice(last, m.index));
      if (m[1] !== undefined) {
        parent.append(el("code", null, m[2]));
      } else if (m[3] !== undefined || m[4] !== undefined) {
        const strong = el("strong");
        appendInline(strong, m[3] ?? m[4]);
        parent.append(strong);
      } else if (m[5] !== undefined || m[6] !== undefined) {
        const em = el("em");
        appendInline(em, m[5] ?? m[6]);
        parent.append(em);
      } else {
        parent.append(link(m[7], m[8]));
      }
      last = m.index + m[0].length;
    }
    if (last < text.length) parent.append(text.slice(last));
  }

  // Only http(s) addresses become links; anything else (javascript:, data:, relative
  // paths) stays visible text.
  function link(label, href) {
    let url = null;
    if (/^https?:\/\//i.test(href)) {
      try { url = new URL(href); } catch { url = null; }
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      return document.createTextNode(`${label} (${href})`);
    }
    const a = el("a", null, label);
    a.href = url.href;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    return a;
  }

  function diffBlock(diff) {
    const pre = el("pre", "diff");
    for (const line of diff.replace(/\n$/, "").split("\n")) {
      let kind = "ctx";
      if (/^(\+\+\+|---|diff |index |new file|deleted file)/.test(line)) kind = "meta";
      else if (line.startsWith("@@")) kind = "hunk";
      else if (line.startsWith("+")) kind = "add";
      else if (line.startsWith("-")) kind = "del";
      // A header names the file the edit is about; the other lines are its content.
      const shown = kind === "meta" ? safeName(line.replace(/\r$/, "")) : line;
      pre.append(el("span", kind, shown || " "));
    }
    return pre;
  }

  // ---- the conversation ----------------------------------------------------------

  const log = byId("log");
  const calls = new Map();      // call id -> tool row
  const approvals = new Map();  // approval id -> card
  let assistant = null;         // {node, text}: the response streaming now
  let lastId = 0;
  let running = false;
  let stickToBottom = true;

  log.addEventListener("scroll", () => {
    stickToBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  });

  let frameQueued = false;
  const dirty = new Set();
  // Streamed text is drawn once per frame, however many deltas arrived meanwhile.
  function scheduleFrame() {
    if (frameQueued) return;
    frameQueued = true;
    requestAnimationFrame(() => {
      frameQueued = false;
      for (const block of dirty) drawAssistant(block);
      dirty.clear();
      if (stickToBottom) log.scrollTop = log.scrollHeight;
    });
  }

  function add(node, container = log) {
    container.append(node);
    scheduleFrame();
    return node;
  }

  function drawAssistant(block) {
    block.node.replaceChildren(renderMarkdown(block.text));
  }

  function streamText(text) {
    if (!assistant) assistant = { node: add(el("div", "msg assistant")), text: "" };
    assistant.text += text;
    dirty.add(assistant);
    scheduleFrame();
  }

  function finishAssistant(event) {
    if (!assistant && !event.text) return;
    if (!assistant) assistant = { node: add(el("div", "msg assistant")), text: "" };
    assistant.text = event.text;  // the complete response is the record
    assistant.node.classList.toggle("cut", Boolean(event.partial));
    dirty.delete(assistant);
    drawAssistant(assistant);
    assistant = null;
  }

  function addUser(event) {
    assistant = null;
    const node = el("div", "msg user");
    if (event.steering) node.append(el("span", "tag", "steer"));
    node.append(el("span", "text", event.text));
    add(node);
  }

  function addLine(className, text) {
    return add(el("div", "line " + className, text));
  }

  const TOOL_STATES = {
    running: "running", waiting: "waiting approval", ok: "ok", failed: "failed",
    denied: "denied", interrupted: "interrupted",
  };
  const RESULT_STATES = { ok: "ok", error: "failed", denied: "denied", interrupted: "interrupted" };

  function setToolState(row, state) {
    row.dataset.state = state;
    row.querySelector(".state").textContent = TOOL_STATES[state] || state;
  }

  function toolRow(callId, tool, summary, container = log) {
    let row = calls.get(callId);
    if (row) return row;
    row = el("details", "tool");
    row.dataset.callId = callId;
    const head = el("summary");
    head.append(el("span", "state"), el("span", "name", safeName(tool)),
                el("span", "summary", safeName(summary || "")), el("span", "meta"));
    row.append(head, el("div", "body"));
    setToolState(row, "running");
    calls.set(callId, row);
    add(row, container);
    return row;
  }

  function addToolCall(event, container = log) {
    if (container === log) assistant = null;
    const row = toolRow(event.call_id, event.tool, event.summary, container);
    const args = el("pre", "args", safeName(JSON.stringify(event.args, null, 2), true));
    row.querySelector(".body").append(args);
  }

  function finishTool(event) {
    const row = toolRow(event.call_id, event.tool, "");
    setToolState(row, RESULT_STATES[event.status] || event.status);
    const meta = [];
    if (event.exit_code !== null && event.exit_code !== undefined && event.exit_code !== 0) {
      meta.push(`exit ${event.exit_code}`);
    }
    if (event.duration_s) meta.push(`${event.duration_s.toFixed(1)} s`);
    row.querySelector(".meta").textContent = meta.join(" · ");
    const body = row.querySelector(".body");
    if (event.diff) body.append(diffBlock(event.diff));
    body.append(el("pre", "output", event.output || "(no output)"));
  }

  // ---- approvals -------------------------------------------------------------------

  const DECIDED = { allow: "Allowed", always: "Allowed always", deny: "Denied" };

  function answeredBy(by) {
    if (by === "tui") return "answered in the terminal";
    if (by === "web") return "answered in the web view";
    if (by === "interrupt") return "closed: the turn was interrupted";
    if (by === "headless") return "denied: nobody can answer in headless mode";
    const always = /^(.*) \(always\)$/.exec(by || "");
    if (always) return `covered by an "always" answer (${answeredBy(always[1])})`;
    return `answered by ${by}`;
  }

  function approvalDetails(event) {
    const details = el("div", "details");
    details.append(el("div", "reason", safeName(event.reason, true)));
    const args = event.args || {};
    if (typeof args.command === "string") {
      details.append(el("pre", "command", safeName(args.command, true)));
    } else if (typeof args.path === "string" && event.diff) {
      details.append(el("div", "path", safeName(args.path)));
    } else {
      details.append(el("pre", "args", safeName(JSON.stringify(args, null, 2), true)));
    }
    if (event.diff) details.append(diffBlock(event.diff));
    return details;
  }

  function addApproval(event) {
    assistant = null;
    const row = calls.get(event.call_id);
    if (row) setToolState(row, "waiting");
    const card = el("section", "approval");
    card.dataset.approvalId = event.approval_id;
    card.dataset.turn = event.turn_id;
    card.append(el("div", "title", `Allow ${safeName(event.tool)}?`), approvalDetails(event));
    const buttons = el("div", "buttons");
    const note = el("input", "note");
    note.placeholder = "note for the model (optional)";
    const allow = el("button", "allow", "Allow");
    allow.dataset.decision = "allow";
    buttons.append(allow);
    if (event.grant) {
      const always = el("button", "always", "Always: ");
      always.dataset.decision = "always";
      always.append(el("code", null, safeName(event.grant)));
      always.title = "allow this and what the rule covers for the rest of the session";
      buttons.append(always);
    }
    const deny = el("button", "deny", "Deny");
    deny.dataset.decision = "deny";
    buttons.append(deny, note);
    for (const button of buttons.querySelectorAll("button")) {
      button.type = "button";
      button.addEventListener("click", () => answer(card, button.dataset.decision, note.value));
    }
    card.append(buttons, el("p", "outcome"));
    approvals.set(event.approval_id, card);
    add(card);
  }

  async function answer(card, decision, note) {
    const buttons = card.querySelectorAll(".buttons button, .buttons input");
    buttons.forEach((b) => { b.disabled = true; });
    const reply = await post("/answer", {
      id: card.dataset.approvalId, turn: Number(card.dataset.turn), decision, note: note || null,
    });
    if (card.classList.contains("resolved")) return;
    const outcome = card.querySelector(".outcome");
    if (reply.ok) {
      outcome.textContent = "sent…";  // the resolved event closes the card
    } else if (reply.status === 404 || reply.status === 409) {
      // 409: another view answered first; the reply says who and what.
      closeCard(card, reply.data.result || "this question is no longer open");
    } else {
      setText(outcome, reply.data.result || `could not answer (${reply.status})`);
      buttons.forEach((b) => { b.disabled = false; });
    }
  }

  function closeCard(card, text) {
    card.classList.add("resolved");
    card.querySelector(".buttons").remove();
    setText(card.querySelector(".outcome"), text);
  }

  function resolveApproval(event) {
    const card = approvals.get(event.approval_id);
    const row = calls.get(event.call_id);
    if (row && row.dataset.state === "waiting") {
      setToolState(row, event.decision === "deny" ? "denied" : "running");
    }
    if (!card || card.classList.contains("resolved")) return;
    const by = event.covered_by ? `${event.by} (${event.covered_by})` : event.by;
    let text = `${DECIDED[event.decision] || event.decision} · ${answeredBy(by)}`;
    if (event.note) text += ` — “${event.note}”`;
    closeCard(card, text);
    card.dataset.by = by;
  }

  // ---- the plan: the model's latest todo checklist, in a box above the composer ------

  const PLAN_MARKS = { done: "✓", in_progress: "▶", pending: "○" };
  let planItems = [];

  function planBox() {
    let box = byId("plan");
    if (!box) {
      box = el("section", "plan");
      box.id = "plan";
      box.setAttribute("aria-label", "plan");
      box.hidden = true;
      byId("bottom").prepend(box);
    }
    return box;
  }

  // The items of a plan result; an entry of another shape (an old or edited log) is left out.
  function planFrom(event) {
    const items = (event.meta || {}).items;
    if (!Array.isArray(items)) return [];
    return items.filter((item) => item && typeof item.text === "string"
      && Object.hasOwn(PLAN_MARKS, item.state));
  }

  function showPlan(items) {
    planItems = items;
    const box = planBox();
    box.hidden = !items.length;
    const done = items.filter((item) => item.state === "done").length;
    const list = el("ul");
    for (const item of items) {
      const row = el("li");
      row.dataset.state = item.state;
      row.append(el("span", "mark", PLAN_MARKS[item.state]), el("span", "text", safeName(item.text)));
      list.append(row);
    }
    box.replaceChildren(el("div", "title", `Plan ${done}/${items.length}`), list);
  }

  function planResult(event) {
    if (event.kind === "plan" && event.status === "ok") showPlan(planFrom(event));
  }

  // A finished plan stays in view until the next turn starts, as in the terminal.
  function planTurnStarted() {
    if (planItems.length && planItems.every((item) => item.state === "done")) showPlan([]);
  }

  // ---- session state ---------------------------------------------------------------

  function setRunning(value) {
    running = value;
    const state = byId("turn-state");
    state.dataset.state = value ? "running" : "idle";
    state.textContent = value ? "running" : "idle";
    byId("stop").disabled = !value;
    byId("send").textContent = value ? "Steer" : "Send";
  }

  function turnEnded(event) {
    assistant = null;
    setRunning(false);
    if (event.state === "completed") return;
    const line = addLine("turn-end", `turn ${event.state}${event.message ? ": " + event.message : ""}`);
    line.dataset.state = event.state;
  }

  function showUsage(event) {
    let text = `${event.session_tokens.toLocaleString()} tokens`;
    if (event.session_cost) text += ` · $${event.session_cost.toFixed(4)}`;
    byId("usage").textContent = text;
  }

  const HOOK_OUTCOMES = { ok: "ran", blocked: "blocked", failed: "failed", timeout: "timed out" };

  // A hook's run, worded as the terminal words it (core/hook_lines.py).
  function hookRan(event) {
    const target = event.tool ? ` ${event.tool}` : "";
    let text = `hook ${event.hook_event}${target} (${event.command.trim().split("\n")[0]}): `
      + (HOOK_OUTCOMES[event.status] || event.status);
    if (event.reason) text += `: ${event.reason}`;
    if (event.context) text += " · added context";
    const line = addLine(event.status === "ok" ? "notice hook" : "error hook", safeName(text));
    line.dataset.status = event.status;
  }

  const HANDLERS = {
    session_started(e) {
      setText(byId("workspace"), safeName(e.workspace));
      setText(byId("model"), e.model);
      setText(byId("mode"), e.mode);
    },
    turn_started() { setRunning(true); planTurnStarted(); },
    user_message: addUser,
    text_delta(e) { streamText(e.text); },
    assistant_message: finishAssistant,
    tool_call: addToolCall,
    approval_requested: addApproval,
    approval_resolved: resolveApproval,
    tool_result(e) { finishTool(e); planResult(e); },
    usage: showUsage,
    turn_ended: turnEnded,
    error(e) { addLine(e.retrying ? "error retrying" : "error", e.message); },
    notice(e) { addLine("notice", e.text); },
    hook_ran: hookRan,
    compacted(e) {
      addLine("notice", `context compacted (${e.reason}): ${e.tokens_before.toLocaleString()} → `
        + `${e.tokens_after.toLocaleString()} tokens`);
    },
    context_usage(e) { byId("context").textContent = `context ${e.percent}%`; },
    mode_changed(e) { setText(byId("mode"), e.mode); },
    model_changed(e) { setText(byId("model"), e.model); },
  };

  // A sub-agent's events (they name the task call that started it) nest under that
  // call's row; only its approvals come to the top, since someone has to answer them.
  const NESTED_HANDLERS = {
    tool_call(e, area) { addToolCall(e, area); },
    tool_result: finishTool,
    approval_requested: addApproval,
    approval_resolved: resolveApproval,
    assistant_message(e, area) {
      if (!e.text) return;
      const node = el("div", "msg assistant nested");
      node.append(renderMarkdown(e.text));
      add(node, area);
    },
    error(e, area) { add(el("div", "line error", e.message), area); },
    notice(e, area) { add(el("div", "line notice", e.text), area); },
  };

  function subArea(callId) {
    const row = calls.get(callId);
    if (!row) return log;
    let area = row.querySelector(":scope > .body > .sub");
    if (!area) {
      area = el("div", "sub");
      row.querySelector(".body").append(area);
    }
    return area;
  }

  function handle(event) {
    if (event.parent_call_id) {
      const nested = NESTED_HANDLERS[event.type];
      if (nested) nested(event, subArea(event.parent_call_id));
      return;
    }
    const handler = HANDLERS[event.type];
    if (handler) handler(event);
  }

  // ---- the event stream ------------------------------------------------------------

  function setConnection(state, text) {
    const conn = byId("conn");
    conn.dataset.state = state;
    conn.textContent = text;
  }

  function connect() {
    const query = new URLSearchParams({ token });
    if (lastId) query.set("after", String(lastId));
    const source = new EventSource("/events?" + query);
    source.onopen = () => setConnection("connected", "connected");
    source.onmessage = (message) => {
      const event = JSON.parse(message.data);
      if (event.id <= lastId) return;  // never draw an event twice
      lastId = event.id;
      document.body.dataset.lastEventId = String(lastId);
      handle(event);
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (an HTTP error): start over from the last event seen.
        setConnection("offline", "offline, retrying…");
        setTimeout(connect, RECONNECT_MS);
      } else {
        setConnection("reconnecting", "reconnecting…");  // EventSource retries by itself
      }
    };
  }

  // ---- the doors -------------------------------------------------------------------

  async function post(path, body) {
    try {
      const response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Token": token },
        body: JSON.stringify(body),
        cache: "no-store",
      });
      let data = {};
      try { data = await response.json(); } catch { data = {}; }
      return { ok: response.ok, status: response.status, data };
    } catch (error) {
      return { ok: false, status: 0, data: { result: "vibe-tui is not reachable" } };
    }
  }

  function feedback(text) {
    setText(byId("feedback"), text);
  }

  async function send() {
    const prompt = byId("prompt");
    const text = prompt.value;
    if (!text.trim()) return;
    const reply = await post("/message", { text });
    if (reply.ok) {
      prompt.value = "";
      feedback(reply.data.result === "steered" ? "sent to the running turn" : "");
    } else {
      feedback(reply.data.result || `could not send (${reply.status})`);
    }
  }

  byId("composer").addEventListener("submit", (e) => { e.preventDefault(); send(); });
  byId("prompt").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
  });
  byId("stop").addEventListener("click", async () => {
    const reply = await post("/stop", {});
    feedback(reply.ok ? "" : reply.data.result || `could not stop (${reply.status})`);
  });

  if (!token) {
    setConnection("offline", "no token");
    feedback("This link has no token: open the link vibe-tui printed.");
  } else {
    connect();
  }
})();
