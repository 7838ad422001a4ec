// Riverse web chat: streams turns from POST /api/chat (server-sent events) and shows each tool call.
"use strict";

const STRINGS = {
  en: {
    newChat: "New chat", conversations: "Conversations", noConversations: "No conversations yet",
    language: "Language", placeholder: "Message Riverse…", send: "Send",
    welcomeTitle: "What can I do for you?",
    welcomeText: "Ask anything. When a tool helps, you will see each call as it runs.",
    tools: "{n} tools", running: "running", ok: "done", failed: "failed", error: "error", timeout: "timed out",
    unknown: "unknown tool", invalid: "bad parameters", refused: "refused",
    approvalAsk: "Allow {name} ({risk}) to run?", undeclared: "risk not declared",
    yes: "Yes", no: "No", always: "Always", approved: "Approved", denied: "Refused",
    waited: "Waited {s} s for the model", deleteAsk: "Delete this conversation?", delete: "Delete",
    failedTurn: "The turn failed: {msg}",
    risk_read: "read", risk_write: "write", risk_network: "network", risk_execute: "execute",
  },
  zh: {
    newChat: "新对话", conversations: "对话记录", noConversations: "还没有对话",
    language: "语言", placeholder: "给 Riverse 发消息…", send: "发送",
    welcomeTitle: "有什么可以帮你？",
    welcomeText: "随便问。需要工具时，每次调用都会实时显示。",
    tools: "{n} 个工具", running: "运行中", ok: "完成", failed: "失败", error: "出错", timeout: "超时",
    unknown: "未知工具", invalid: "参数错误", refused: "已拒绝",
    approvalAsk: "允许运行 {name}（{risk}）吗？", undeclared: "未声明风险",
    yes: "允许", no: "拒绝", always: "总是允许", approved: "已允许", denied: "已拒绝",
    waited: "等待模型 {s} 秒", deleteAsk: "删除这个对话？", delete: "删除",
    failedTurn: "本轮失败：{msg}",
    risk_read: "读取", risk_write: "写入", risk_network: "网络", risk_execute: "执行",
  },
  ja: {
    newChat: "新しいチャット", conversations: "会話", noConversations: "まだ会話はありません",
    language: "言語", placeholder: "Riverse にメッセージ…", send: "送信",
    welcomeTitle: "何をお手伝いしましょう？",
    welcomeText: "何でも聞いてください。ツールを使うときは、呼び出しがその場で表示されます。",
    tools: "ツール {n} 個", running: "実行中", ok: "完了", failed: "失敗", error: "エラー", timeout: "タイムアウト",
    unknown: "不明なツール", invalid: "パラメータ不正", refused: "拒否",
    approvalAsk: "{name}（{risk}）を実行してよいですか？", undeclared: "リスク未宣言",
    yes: "はい", no: "いいえ", always: "常に許可", approved: "許可しました", denied: "拒否しました",
    waited: "モデルを {s} 秒待ちました", deleteAsk: "この会話を削除しますか？", delete: "削除",
    failedTurn: "このターンは失敗しました：{msg}",
    risk_read: "読み取り", risk_write: "書き込み", risk_network: "ネットワーク", risk_execute: "実行",
  },
};

const $ = (id) => document.getElementById(id);
const state = { lang: "en", conversation: null, busy: false, info: null, shownApprovals: new Set() };

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

function applyLanguage() {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : state.lang;
  document.querySelectorAll("[data-i18n]").forEach((n) => { n.textContent = tr(n.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach((n) => { n.placeholder = tr(n.dataset.i18nPlaceholder); });
  if (state.info) $("model").textContent = `${state.info.model} · ${tr("tools", { n: state.info.tools })}`;
  if (state.conversation) $("title").removeAttribute("data-i18n");
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

// ------------------------------------------------------------ conversations
async function loadConversations() {
  const { conversations } = await (await api("/api/conversations")).json();
  const list = $("conversations");
  list.replaceChildren();
  if (!conversations.length) list.append(el("li", "none", tr("noConversations")));
  for (const c of conversations) {
    const item = el("li", c.id === state.conversation ? "active" : "");
    item.dataset.id = c.id;
    item.append(el("span", "name", c.title || c.id));
    const del = el("button", "delete", "×");
    del.title = tr("delete");
    del.addEventListener("click", (e) => { e.stopPropagation(); removeConversation(c.id); });
    item.append(del);
    item.addEventListener("click", () => openConversation(c.id));
    list.append(item);
  }
}

async function openConversation(id) {
  if (state.busy) return;
  const data = await (await api(`/api/conversations/${encodeURIComponent(id)}`)).json();
  state.conversation = id;
  $("title").textContent = data.title || id;
  $("title").removeAttribute("data-i18n");
  const box = $("messages");
  box.replaceChildren();
  for (const m of data.messages) {
    if (m.role === "user") addUser(m.content);
    else if (m.role === "assistant") {
      const view = addAssistant();
      for (const call of m.tool_calls || []) finishTool(startTool(view, call.name, call.params), call);
      view.bubble.textContent = m.content;
      view.node.classList.remove("pending");
    }
  }
  scrollDown();
  loadConversations();
}

async function removeConversation(id) {
  if (!window.confirm(tr("deleteAsk"))) return;
  await api(`/api/conversations/${encodeURIComponent(id)}`, { method: "DELETE" });
  if (state.conversation === id) newChat();
  loadConversations();
}

function newChat() {
  state.conversation = null;
  $("title").dataset.i18n = "newChat";
  $("title").textContent = tr("newChat");
  $("messages").replaceChildren($("welcome") || el("div"));
  loadConversations();
}

// ------------------------------------------------------------------ messages
function scrollDown() { const box = $("messages"); box.scrollTop = box.scrollHeight; }

function addUser(text) {
  const node = el("div", "msg user");
  node.append(el("div", "bubble", text));
  $("messages").append(node);
}

function addAssistant() {
  const node = el("div", "msg assistant pending");
  const bubble = el("div", "bubble");
  node.append(bubble);
  $("messages").append(node);
  return { node, bubble, tools: [] };
}

function preview(text) {
  const pre = el("pre", "preview", text);
  pre.title = "click to expand";
  pre.addEventListener("click", () => pre.classList.toggle("open"));
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
  tool.card.classList.add(outcome.success ? "ok" : "bad");
  tool.status.textContent = tr(outcome.status || (outcome.success ? "ok" : "failed"));
  tool.duration.textContent = `${outcome.duration_ms} ms`;
  if (outcome.data) tool.card.append(preview(outcome.data));
  if (!outcome.success && outcome.error) tool.card.append(el("div", "reason", outcome.error));
}

function showApproval(anchor, request) {
  if (state.shownApprovals.has(request.id)) return;
  state.shownApprovals.add(request.id);
  const card = el("div", "approval");
  card.dataset.approval = request.id;
  const riskName = tr(`risk_${request.risk}`);
  const risk = request.declared ? riskName : `${riskName}, ${tr("undeclared")}`;
  card.append(el("div", "", tr("approvalAsk", { name: request.name, risk })));
  // Asked by another client, there is no tool card above to show the parameters.
  if (!anchor && Object.keys(request.params || {}).length) card.append(preview(JSON.stringify(request.params, null, 1)));
  const actions = el("div", "actions");
  for (const answer of ["yes", "no", "always"]) {
    const button = el("button", answer, tr(answer));
    button.type = "button";
    button.addEventListener("click", async () => {
      card.classList.add("answered");
      card.append(el("div", "note", tr(answer === "no" ? "denied" : "approved")));
      await api(`/api/approvals/${request.id}`, { method: "POST", body: JSON.stringify({ answer }) }).catch(() => {});
    });
    actions.append(button);
  }
  card.append(actions);
  if (anchor) anchor.node.insertBefore(card, anchor.bubble);
  else $("messages").append(card);
  scrollDown();
}

// Approvals this browser's turns wait for show up here too, and with a token (whose holders are one
// owner) those of other clients such as the OpenAI API. The server lists only this client's own.
async function pollApprovals() {
  if (state.busy || document.hidden) return;
  try {
    const { approvals } = await (await api("/api/approvals")).json();
    approvals.forEach((request) => showApproval(null, request));
  } catch (e) { /* the next poll tries again */ }
}

// ---------------------------------------------------------------------- turns
function handle(view, kind, data) {
  if (kind === "text") view.bubble.textContent += data.text;
  else if (kind === "tool_start") startTool(view, data.name, data.params);
  else if (kind === "tool_end") {
    const tool = view.tools.find((t) => t.name === data.name && !t.done);
    if (tool) { tool.done = true; finishTool(tool, data); }
  } else if (kind === "approval_request") showApproval(view, data);
  else if (kind === "notice") view.node.insertBefore(el("div", "note", data.text), view.bubble);
  else if (kind === "queue") view.node.insertBefore(el("div", "note", tr("waited", { s: (data.wait_ms / 1000).toFixed(1) })), view.bubble);
  else if (kind === "done") view.bubble.textContent = data.answer || view.bubble.textContent;
  else if (kind === "error") view.node.append(el("div", "note error", tr("failedTurn", { msg: data.message })));
  if (kind === "done" || kind === "error") view.node.classList.remove("pending");
  scrollDown();
}

async function send(text) {
  state.busy = true;
  $("send").disabled = true;
  $("welcome")?.remove();
  addUser(text);
  const view = addAssistant();
  scrollDown();
  try {
    const response = await api("/api/chat", { method: "POST", body: JSON.stringify({ message: text, conversation_id: state.conversation }) });
    state.conversation = response.headers.get("X-Riverse-Conversation") || state.conversation;
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
  } catch (error) {
    handle(view, "error", { message: error.message });
  } finally {
    state.busy = false;
    $("send").disabled = false;
    view.node.classList.remove("pending");
    await loadConversations();
    const active = document.querySelector(`.conversations li[data-id="${state.conversation}"] .name`);
    if (active) { $("title").textContent = active.textContent; $("title").removeAttribute("data-i18n"); }
  }
}

// ----------------------------------------------------------------------- start
async function start() {
  $("language").addEventListener("change", (e) => {
    state.lang = e.target.value;
    localStorage.setItem("riverse.lang", state.lang);
    applyLanguage();
    loadConversations();
  });
  const input = $("input");
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || state.busy) return;
    input.value = "";
    input.style.height = "";
    send(text);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); $("composer").requestSubmit(); }
  });
  input.addEventListener("input", () => { input.style.height = ""; input.style.height = `${input.scrollHeight}px`; });
  $("new-chat").addEventListener("click", newChat);
  state.info = await (await api("/api/info")).json();
  state.lang = localStorage.getItem("riverse.lang") || state.info.language || "en";
  $("language").value = state.lang;
  applyLanguage();
  await loadConversations();
  setInterval(pollApprovals, 3000);
  document.body.dataset.ready = "1";
}

start();
