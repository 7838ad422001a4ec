// Riverse web chat: streams turns from POST /api/chat (server-sent events) and shows each tool call.
// Answers are Markdown, sanitised (markdown.js); tool results stay plain text. A running turn can be
// stopped (the Stop button or Escape); an answer can be copied or asked again, a message edited.
"use strict";

const STRINGS = window.RIVERSE_STRINGS;
const $ = (id) => document.getElementById(id);
const state = {
  lang: "en", conversation: null, busy: false, turn: null, stopping: false, info: null, status: null,
  tools: null, shownApprovals: new Set(),
};

function tr(key, values = {}) {
  const text = (STRINGS[state.lang] || STRINGS.en)[key] || STRINGS.en[key] || key;
  return text.replace(/\{(\w+)\}/g, (_, k) => String(values[k] ?? ""));
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(className, label, onClick) {
  const node = el("button", className, label);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

function applyLanguage() {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : state.lang;
  document.querySelectorAll("[data-i18n]").forEach((n) => { n.textContent = tr(n.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach((n) => { n.placeholder = tr(n.dataset.i18nPlaceholder); });
  document.querySelectorAll("[data-i18n-label]").forEach((n) => { n.setAttribute("aria-label", tr(n.dataset.i18nLabel)); });
  if (state.conversation) $("title").removeAttribute("data-i18n");
  showStatus();
  if (state.tools) renderTools();
  if ($("welcome")) renderWelcome();
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: { "Content-Type": "application/json", ...(options.headers || {}) } });
  if (response.status === 401) { window.location.href = "/login"; throw new Error("sign-in needed"); }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.error ? body.error.message : `HTTP ${response.status}`);
  }
  return response;
}

// Copy `text`; the button says so for a moment.
async function copyText(text, node) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) { // an insecure origin has no clipboard API
    const area = el("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  if (node) {
    node.classList.add("done");
    node.textContent = tr("copied");
    setTimeout(() => { node.classList.remove("done"); node.textContent = tr(node.dataset.label); }, 1500);
  }
}

function copyButton(getText, label = "copy") {
  const node = button("act copy", tr(label), () => copyText(getText(), node));
  node.dataset.label = label;
  return node;
}

// ------------------------------------------------------------ drawer, panel
function openDrawer(open) {
  document.body.classList.toggle("drawer-open", open);
  $("menu").setAttribute("aria-expanded", String(open));
  if (open) $("new-chat").focus();
}

function closeOverlays() {
  const was = document.body.classList.contains("drawer-open") || !$("tools-panel").hidden;
  openDrawer(false);
  openTools(false);
  return was;
}

function openTools(open) {
  $("tools-panel").hidden = !open;
  document.body.classList.toggle("panel-open", open);
  $("tools-button").setAttribute("aria-expanded", String(open));
  if (open) { loadTools(); $("close-tools").focus(); }
}

// ------------------------------------------------------------ conversations
async function loadConversations() {
  const { conversations } = await (await api("/api/conversations")).json();
  const list = $("conversations");
  list.replaceChildren();
  if (!conversations.length) list.append(el("li", "none", tr("noConversations")));
  for (const c of conversations) {
    const item = el("li", c.id === state.conversation ? "active" : "");
    item.dataset.id = c.id;
    const open = button("name", c.title || c.id, () => openConversation(c.id));
    const del = button("delete", "×", () => removeConversation(c.id));
    del.title = tr("delete");
    del.setAttribute("aria-label", `${tr("delete")}: ${c.title || c.id}`);
    item.append(open, del);
    list.append(item);
  }
}

async function openConversation(id) {
  if (state.busy) return;
  const data = await (await api(`/api/conversations/${encodeURIComponent(id)}`)).json();
  state.conversation = id;
  setTitle(data.title || id);
  $("messages").replaceChildren();
  for (const m of data.messages) {
    if (m.role === "user") addUser(m.content);
    else if (m.role === "assistant") {
      const view = addAssistant();
      for (const call of m.tool_calls || []) finishTool(startTool(view, call.name, call.params), call);
      setAnswer(view, m.content);
      view.node.classList.remove("pending");
    }
  }
  refreshActions();
  openDrawer(false);
  scrollDown(true);
  loadConversations();
  $("input").focus();
}

async function removeConversation(id) {
  if (!window.confirm(tr("deleteAsk"))) return;
  await api(`/api/conversations/${encodeURIComponent(id)}`, { method: "DELETE" });
  if (state.conversation === id) newChat();
  loadConversations();
}

function setTitle(text) {
  $("title").textContent = text;
  $("title").removeAttribute("data-i18n");
}

function newChat() {
  if (state.busy) return;
  state.conversation = null;
  $("title").dataset.i18n = "newChat";
  $("title").textContent = tr("newChat");
  $("messages").replaceChildren();
  renderWelcome();
  openDrawer(false);
  loadConversations();
  $("input").focus();
}

function renderWelcome() {
  const box = $("welcome") || el("div", "welcome");
  box.id = "welcome";
  box.replaceChildren(el("h2", "", tr("welcomeTitle")), el("p", "", tr("welcomeText")));
  const examples = (state.tools || []).filter((t) => t.active && t.available && (t.examples || []).length)
    .slice(0, 4).map((t) => t.examples[0]);
  if (examples.length) {
    const list = el("div", "examples");
    list.append(el("span", "examples-title", tr("tryThese")));
    examples.forEach((text) => list.append(button("example", text, () => tryExample(text))));
    box.append(list);
  }
  if (!box.parentNode) $("messages").append(box);
}

function tryExample(text) {
  openTools(false);
  const input = $("input");
  input.value = text;
  input.dispatchEvent(new Event("input"));
  input.focus();
}

// ------------------------------------------------------------------ messages
function nearBottom() { const box = $("messages"); return box.scrollHeight - box.scrollTop - box.clientHeight < 80; }
function scrollDown(force) { const box = $("messages"); if (force || state.stick) box.scrollTop = box.scrollHeight; }

function addUser(text) {
  const node = el("div", "msg user");
  node.dataset.text = text;
  node.append(el("div", "bubble", text));
  const actions = el("div", "actions");
  actions.append(copyButton(() => node.dataset.text), button("act edit", tr("edit"), () => editUser(node)));
  node.append(actions);
  $("messages").append(node);
  return node;
}

function addAssistant() {
  const node = el("div", "msg assistant pending");
  const bubble = el("div", "bubble markdown");
  const actions = el("div", "actions");
  node.append(bubble, actions);
  $("messages").append(node);
  const view = { node, bubble, actions, tools: [], text: "", frame: 0 };
  actions.append(copyButton(() => view.text));
  return view;
}

function setAnswer(view, text) {
  view.text = text;
  view.bubble.replaceChildren(window.RiverseMarkdown.render(text, (code) => copyButton(() => code)));
}

// Streaming: the answer is rendered again at most once a frame.
function growAnswer(view, piece) {
  view.text += piece;
  if (view.frame) return;
  view.frame = requestAnimationFrame(() => {
    view.frame = 0;
    state.stick = nearBottom();
    setAnswer(view, view.text);
    scrollDown();
  });
}

// Only the last answer can be asked again; nothing is edited or asked again while a turn runs.
function refreshActions() {
  document.querySelectorAll(".msg .act.regenerate").forEach((n) => n.remove());
  const answers = document.querySelectorAll(".msg.assistant");
  const last = answers[answers.length - 1];
  if (last && !state.busy) last.querySelector(":scope > .actions").append(button("act regenerate", tr("regenerate"), regenerate));
  document.body.classList.toggle("busy", state.busy);
}

function userIndex(node) { return [...document.querySelectorAll(".msg.user")].indexOf(node); }

function dropFrom(node) {
  while (node.nextSibling) node.nextSibling.remove();
  node.remove();
}

function regenerate() {
  const users = document.querySelectorAll(".msg.user");
  const last = users[users.length - 1];
  if (!last || state.busy) return;
  const index = userIndex(last);
  const text = last.dataset.text;
  dropFrom(last);
  send(text, index);
}

function editUser(node) {
  if (state.busy || node.querySelector(".editor")) return;
  const editor = el("div", "editor");
  const area = el("textarea");
  area.value = node.dataset.text;
  const actions = el("div", "actions");
  const cancel = () => { editor.remove(); node.classList.remove("editing"); };
  const save = () => {
    const text = area.value.trim();
    if (!text || state.busy) return;
    const index = userIndex(node);
    dropFrom(node);
    send(text, index);
  };
  actions.append(button("act save", tr("saveSend"), save), button("act cancel", tr("cancel"), cancel));
  area.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); save(); }
    if (e.key === "Escape") { e.stopPropagation(); cancel(); }
  });
  editor.append(area, actions);
  node.classList.add("editing");
  node.append(editor);
  area.focus();
}

function preview(text) {
  const pre = el("pre", "preview", text);
  pre.tabIndex = 0;
  pre.addEventListener("click", () => pre.classList.toggle("open"));
  pre.addEventListener("keydown", (e) => { if (e.key === "Enter") pre.classList.toggle("open"); });
  return pre;
}

function startTool(view, name, params) {
  const card = el("div", "tool");
  card.dataset.tool = name;
  const head = el("div", "tool-head");
  const status = el("span", "pill", tr("running"));
  const duration = el("span", "duration");
  head.append(el("span", "tool-name", name), status, duration);
  card.append(head);
  const entries = Object.entries(params || {});
  if (entries.length) {
    const list = el("div", "params");
    for (const [key, value] of entries) {
      const item = el("span", "param");
      item.append(el("b", "", `${key}=`), document.createTextNode(typeof value === "string" ? value : JSON.stringify(value)));
      list.append(item);
    }
    card.append(list);
  }
  view.node.insertBefore(card, view.bubble);
  const tool = { name, card, status, duration };
  view.tools.push(tool);
  return tool;
}

function finishTool(tool, outcome) {
  tool.done = true;
  tool.card.classList.add(outcome.success ? "ok" : "bad");
  tool.status.textContent = tr(outcome.status || (outcome.success ? "ok" : "failed"));
  tool.duration.textContent = `${outcome.duration_ms} ms`;
  if (outcome.data) {
    tool.card.append(preview(outcome.data)); // a tool's output is text, never markup
    const actions = el("div", "actions");
    actions.append(copyButton(() => outcome.data, "copyResult"));
    tool.card.append(actions);
  }
  if (!outcome.success && outcome.error) tool.card.append(el("div", "reason", outcome.error));
}

function showApproval(view, request) {
  if (state.shownApprovals.has(request.id)) return;
  state.shownApprovals.add(request.id);
  const card = el("div", "approval");
  card.dataset.approval = request.id;
  const riskName = tr(`risk_${request.risk}`);
  const risk = request.declared ? riskName : `${riskName}, ${tr("undeclared")}`;
  card.append(el("div", "question", tr("approvalAsk", { name: request.name, risk })));
  const tool = view ? view.tools.find((t) => t.name === request.name && !t.done && !t.asked) : null;
  // Asked by another client, there is no tool card to show the parameters.
  if (!tool && Object.keys(request.params || {}).length) card.append(preview(JSON.stringify(request.params, null, 1)));
  const actions = el("div", "actions");
  for (const answer of ["yes", "no", "always"]) {
    actions.append(button(answer, tr(answer), async () => {
      card.classList.add("answered");
      card.append(el("div", "note", tr(answer === "no" ? "denied" : "approved")));
      $("input").focus();
      await api(`/api/approvals/${request.id}`, { method: "POST", body: JSON.stringify({ answer }) }).catch(() => {});
    }));
  }
  card.append(actions);
  state.stick = nearBottom();
  if (tool) { tool.asked = true; tool.card.append(card); } // the question sits in the card it is about
  else if (view) view.node.insertBefore(card, view.bubble);
  else $("messages").append(card);
  scrollDown();
}

// Approvals this browser's turns wait for show up here too, and with a token (whose holders are one
// owner) those of other clients such as the OpenAI API. The server lists only this client's own.
async function pollApprovals() {
  if (state.busy || document.hidden) return;
  try {
    const { approvals } = await (await api("/api/approvals")).json();
    approvals.forEach((request) => { $("welcome")?.remove(); showApproval(null, request); });
  } catch (e) { /* the next poll tries again */ }
}

// ---------------------------------------------------------------------- turns
function note(view, text, className = "note") {
  view.node.insertBefore(el("div", className, text), view.bubble);
}

function handle(view, kind, data) {
  if (kind === "text") { growAnswer(view, data.text); return; }
  state.stick = nearBottom();
  if (kind === "tool_start") startTool(view, data.name, data.params);
  else if (kind === "tool_end") {
    const tool = view.tools.find((t) => t.name === data.name && !t.done);
    if (tool) finishTool(tool, data);
  } else if (kind === "approval_request") showApproval(view, data);
  else if (kind === "notice" && data.code === "preparing") note(view, tr("preparingNote"));
  else if (kind === "notice" && data.code === "approval_timeout") note(view, tr("approvalTimeout", { name: data.name, s: data.seconds }));
  else if (kind === "notice") note(view, data.text);
  else if (kind === "queue") note(view, tr("waited", { s: (data.wait_ms / 1000).toFixed(1) }));
  else if (kind === "done") {
    cancelAnimationFrame(view.frame);
    view.frame = 0;
    setAnswer(view, data.answer || view.text);
    if (data.stopped) view.node.append(el("div", "note stopped", tr("stoppedTurn")));
  } else if (kind === "error") view.node.append(el("div", "note error", tr("failedTurn", { msg: data.message })));
  if (kind === "done" || kind === "error") view.node.classList.remove("pending");
  scrollDown();
}

async function readEvents(response, view) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const kind = (block.match(/^event: (.*)$/m) || [])[1];
      const data = (block.match(/^data: (.*)$/m) || [])[1];
      if (kind && data) handle(view, kind, JSON.parse(data));
    }
  }
}

function setBusy(busy) {
  state.busy = busy;
  $("send").hidden = busy;
  $("stop").hidden = !busy;
  $("stop").disabled = false;
  refreshActions();
}

// Send `text`; with `resendFrom`, the conversation's user message of that number and all after it
// are replaced (answering again, or an edited message).
async function send(text, resendFrom = null) {
  setBusy(true);
  state.turn = null;
  $("welcome")?.remove();
  addUser(text);
  const view = addAssistant();
  scrollDown(true);
  $("input").focus();
  try {
    const body = { message: text, conversation_id: state.conversation };
    if (resendFrom !== null) body.resend_from = resendFrom;
    const response = await api("/api/chat", { method: "POST", body: JSON.stringify(body) });
    state.conversation = response.headers.get("X-Riverse-Conversation") || state.conversation;
    state.turn = response.headers.get("X-Riverse-Turn");
    if (state.stopping) stop();
    await readEvents(response, view);
  } catch (error) {
    handle(view, "error", { message: error.message });
  } finally {
    state.turn = null;
    state.stopping = false;
    setBusy(false);
    view.node.classList.remove("pending");
    await loadConversations();
    const active = document.querySelector(`.conversations li.active .name`);
    if (active) setTitle(active.textContent);
    $("input").focus();
  }
}

async function stop() {
  if (!state.busy) return;
  state.stopping = true;
  $("stop").disabled = true;
  if (!state.turn) return; // asked again as soon as the turn has its id
  await api(`/api/turns/${encodeURIComponent(state.turn)}/stop`, { method: "POST" }).catch(() => {});
  $("input").focus();
}

// ------------------------------------------------------------- model, tools
function showStatus() {
  const status = state.status || { state: "starting", prepared: [], languages: [] };
  const values = { done: status.prepared.length, total: status.languages.length, error: status.error };
  let label = tr(`state_${status.state}`, values);
  if (status.examples) label += ` · ${tr("examplesWritten", { done: status.examples[0], total: status.examples[1] })}`;
  $("model-state").dataset.state = status.state;
  $("model-name").textContent = state.info ? state.info.model : "";
  $("model-note").textContent = label;
  $("model-state").title = `${tr("model")}: ${state.info ? state.info.model : ""} · ${label}`;
  const panel = $("panel-model");
  panel.replaceChildren(el("b", "", `${tr("model")}: `), document.createTextNode(state.info ? state.info.model : ""),
    el("span", `state ${status.state}`, label));
}

async function pollStatus() {
  try {
    state.status = await (await api("/api/status")).json();
  } catch (e) { /* the next poll tries again */ }
  showStatus();
  const settled = state.status && ["ready", "off", "failed"].includes(state.status.state);
  if (!settled) setTimeout(pollStatus, state.status && state.status.state !== "starting" ? 1000 : 250);
}

async function loadTools() {
  try {
    const data = await (await api("/api/tools")).json();
    state.tools = data.tools;
    state.problems = data.problems || [];
  } catch (e) { state.tools = state.tools || []; }
  renderTools();
  if ($("welcome")) renderWelcome();
}

function renderTools() {
  const list = $("tool-list");
  list.replaceChildren();
  if (!state.tools.length) list.append(el("li", "none", tr("noTools")));
  for (const t of state.tools) {
    const usable = t.available && t.active;
    const item = el("li", usable ? "tool-item" : "tool-item off");
    item.dataset.tool = t.name;
    const head = el("div", "tool-item-head");
    head.append(el("span", "tool-name", t.name), el("span", `risk risk-${t.risk_level || t.risk}`, tr(`risk_${t.risk_level || t.risk}`)),
      el("span", "availability", tr(usable ? "available" : (t.available ? "overridden" : "unavailable"))));
    item.append(head, el("p", "description", t.description || ""));
    if (t.reason) item.append(el("p", "why", `${tr("why")}: ${t.reason}`));
    if ((t.examples || []).length) {
      const examples = el("div", "examples");
      for (const text of t.examples) {
        const chip = button("example", text, () => tryExample(text));
        chip.disabled = !usable;
        examples.append(chip);
      }
      item.append(examples);
    }
    item.append(el("p", "source", `${tr("source")}: ${t.source || t.origin || ""}`));
    list.append(item);
  }
}

// ----------------------------------------------------------------------- start
function bindComposer() {
  const input = $("input");
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    input.focus();
    if (!text || state.busy) return;
    input.value = "";
    input.style.height = "";
    send(text);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); $("composer").requestSubmit(); }
  });
  input.addEventListener("input", () => { input.style.height = ""; input.style.height = `${input.scrollHeight}px`; });
  $("stop").addEventListener("click", stop);
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || e.isComposing) return;
    if (closeOverlays()) { input.focus(); return; }
    if (state.busy) { e.preventDefault(); stop(); }
  });
}

async function start() {
  $("language").addEventListener("change", (e) => {
    state.lang = e.target.value;
    localStorage.setItem("riverse.lang", state.lang);
    applyLanguage();
    loadConversations();
  });
  bindComposer();
  $("new-chat").addEventListener("click", newChat);
  $("menu").addEventListener("click", () => openDrawer(!document.body.classList.contains("drawer-open")));
  $("close-drawer").addEventListener("click", () => openDrawer(false));
  $("backdrop").addEventListener("click", closeOverlays);
  $("tools-button").addEventListener("click", () => openTools($("tools-panel").hidden));
  $("model-state").addEventListener("click", () => openTools(true));
  $("close-tools").addEventListener("click", () => { openTools(false); $("input").focus(); });
  state.info = await (await api("/api/info")).json();
  state.lang = localStorage.getItem("riverse.lang") || state.info.language || "en";
  $("language").value = state.lang;
  renderWelcome();
  applyLanguage();
  await Promise.all([loadConversations(), loadTools(), pollStatus()]);
  setInterval(pollApprovals, 3000);
  $("input").focus();
  document.body.dataset.ready = "1";
}

start();
