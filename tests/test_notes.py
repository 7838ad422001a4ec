"""notes: the user's notes in the Riverse database, found again by a question in en, zh and ja."""

from __future__ import annotations

import sqlite3

import pytest

from agent.config import load_settings
from agent.loop import Agent
from agent.storage.migrations import migrate
from agent.storage.note_store import NoteStore, keywords
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.toolkit.runtime import ApprovalGate, ToolRunner
from agent.storage import open_store
from agent.tools import ToolRegistry
from agent.tools.notes import NotesTool


def notes_tool(home, language: str = "en", **section) -> NotesTool:
    return NotesTool({"language": language, "home": str(home), "tools": {"notes": section} if section else {}})


def test_migration_adds_the_notes_table_once():
    db = sqlite3.connect(":memory:")
    assert migrate(db)[:4] == ["m001_initial", "m002_notes", "m003_conversation_owner", "m004_tool_call_traceback"]
    assert migrate(db) == []
    columns = [row[1] for row in db.execute("PRAGMA table_info(notes)")]
    assert columns == ["id", "text", "folded", "created_at", "owner"]


@pytest.mark.parametrize(
    "query,expected",
    [
        ("When does my passport expire?", ["passport", "expir"]),
        ("Which notes mention expiring passports?", ["mention", "expir", "passport"]),
        ("我的护照什么时候到期？", ["护照", "到期"]),
        ("パスポートの期限はいつ？", ["パス", "スポ", "ポー", "ート", "期限"]),
        ("ＷｉＦｉ password", ["wifi", "password"]),
        ("what is it?", []),
        ("りんご", ["りん", "んご"]),
    ],
)
def test_keywords_of_a_question(query, expected):
    assert keywords(query) == expected


@pytest.mark.parametrize(
    "language,note,question,other",
    [
        ("en", "My passport expires in May 2027", "when does my passport expire?", "The cabin WiFi password is larch-42"),
        ("zh", "我的护照2027年5月到期", "我的护照什么时候到期？", "小屋的无线网密码是 larch-42"),
        ("ja", "パスポートの有効期限は2027年5月", "パスポートの期限はいつだっけ？", "山小屋の WiFi のパスワードは larch-42"),
    ],
)
def test_remember_then_answer_a_question_in_each_language(riverse_home, language, note, question, other):
    tool = notes_tool(riverse_home, language)
    assert tool.execute({"action": "add", "text": other}).success
    added = tool.execute({"action": "add", "text": note})
    assert added.success and added.data.endswith(note)
    found = notes_tool(riverse_home, language).execute({"action": "search", "text": question})  # a later session
    assert found.success
    assert note in found.data and other not in found.data


def test_search_ranks_by_keywords_and_says_when_nothing_matches(riverse_home):
    tool = notes_tool(riverse_home)
    for text in ("dentist on Friday", "passport expires in May", "passport photo is in the blue folder"):
        tool.execute({"action": "add", "text": text})
    ranked = tool.execute({"action": "search", "text": "passport expiry"}).data.splitlines()
    assert ranked[0] == "Notes matching 'passport expiry':"
    assert ranked[1].endswith("passport expires in May") and ranked[1].startswith("#2 (")
    assert all("dentist" not in line for line in ranked)
    none = tool.execute({"action": "search", "text": "car insurance"})
    assert none.success and none.data == "No note matches 'car insurance' (3 notes in all)."


def test_list_and_delete(riverse_home):
    tool = notes_tool(riverse_home, list_limit=2)
    assert tool.execute({"action": "list"}).data == "There are no notes yet. Add one with action=add."
    for text in ("one", "two", "three"):
        tool.execute({"action": "add", "text": text})
    listed = tool.execute({"action": "list"}).data.splitlines()
    assert listed[0] == "Your notes (3 in all, newest first):"
    assert [line.split(": ", 1)[1] for line in listed[1:]] == ["three", "two"]
    deleted = tool.execute({"action": "delete", "id": 2})
    assert deleted.success and deleted.data == "Deleted note #2: two"
    again = tool.execute({"action": "delete", "id": 2})
    assert not again.success and again.error.startswith("There is no note #2")
    assert "Your notes (2 in all" in tool.execute({"action": "list"}).data


@pytest.mark.parametrize(
    "params,language,message",
    [
        ({"action": "add", "text": "  "}, "en", "Nothing to add: pass the note's text"),
        ({"action": "search"}, "zh", "没有可search的内容"),
        ({"action": "delete"}, "ja", "delete には id にメモの番号が必要です"),
        ({"action": "rename", "text": "x"}, "en", "Unknown action 'rename'; use one of add, search, list, delete."),
        ({"action": "add", "text": "x" * 2001}, "en", "The note has 2001 characters; the limit is 2000."),
    ],
)
def test_bad_requests_get_clear_messages(riverse_home, params, language, message):
    result = notes_tool(riverse_home, language).execute(params)
    assert not result.success and message in result.error


def test_notes_need_the_riverse_home():
    result = NotesTool({"language": "en", "tools": {}}).execute({"action": "list"})
    assert not result.success and "needs the Riverse home folder" in result.error


def test_notes_are_kept_in_the_riverse_database(riverse_home):
    notes_tool(riverse_home).execute({"action": "add", "text": "bike lock code 4711"})
    store = open_store(riverse_home / "riverse.db")
    assert [n.text for n in NoteStore(store).latest(5)] == ["bike lock code 4711"]


def test_reading_runs_without_asking_and_writing_asks_by_default(riverse_home):
    settings = load_settings()
    manifest = NotesTool(settings.config_for_tools()).manifest()
    assert manifest.risk == "write"
    assert [manifest.risk_of({"action": a}) for a in ("list", "search", "add", "delete")] == ["read", "read", "write", "write"]
    gate = ApprovalGate.from_settings(settings.approval)  # nobody to ask
    assert gate.check(manifest, {"action": "list"}) == (True, "policy", "")
    assert gate.check(manifest, {"action": "search", "text": "passport"}) == (True, "policy", "")
    for action in ("add", "delete"):
        allowed, how, reason = gate.check(manifest, {"action": action})
        assert (allowed, how) == (False, "refused") and "tool 'notes' (write) needs the user's approval" in reason
    # A policy for the tool itself decides every action: never asks, ask asks even to read.
    trusting = load_settings(overrides={"approval.tools": {"notes": "never"}})
    assert ApprovalGate.from_settings(trusting.approval).check(manifest, {"action": "add"}) == (True, "policy", "")
    strict = load_settings(overrides={"approval.tools": {"notes": "ask"}})
    allowed, how, reason = ApprovalGate.from_settings(strict.approval).check(manifest, {"action": "list"})
    assert (allowed, how) == (False, "refused") and "tool 'notes' (read) needs the user's approval" in reason


def test_the_agent_remembers_across_sessions(riverse_home):
    """"remember that my passport expires in May", then, in a new session, "when does it expire?"."""
    settings = load_settings()

    asked = []  # adding a note writes: the user approves it; searching only reads: nobody is asked

    def agent(provider: ScriptedProvider) -> Agent:
        registry = ToolRegistry(settings.config_for_tools(), packages=False)
        store = open_store(settings.db_path)
        runner = ToolRunner.from_settings(registry, settings, approver=lambda request: asked.append(request) or "yes")
        return Agent(provider, registry, runner=runner, store=store)

    first = ScriptedProvider([ToolCall("notes", {"action": "add", "text": "My passport expires in May"}), "Noted."])
    turn = agent(first).ask("remember that my passport expires in May")
    assert turn.answer == "Noted." and turn.tool_calls[0].status == "ok"
    assert [(r.name, r.risk, r.params["action"]) for r in asked] == [("notes", "write", "add")]

    second = ScriptedProvider([ToolCall("notes", {"action": "Search", "text": "passport expire"}), "In May."])
    answer = agent(second).ask("when does my passport expire?")
    assert len(asked) == 1
    assert answer.answer == "In May."
    tool_message = second.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "My passport expires in May" in tool_message["content"]
    logged = open_store(settings.db_path).tool_calls(tool="notes")
    assert [c["params"]["action"] for c in logged] == ["search", "add"]  # newest first; "Search" was normalised


def test_manifest_in_three_languages():
    manifests = [NotesTool({"language": lang}).manifest() for lang in ("en", "zh", "ja")]
    assert len({m.description for m in manifests}) == 3
    assert all(m.parameter_types["action"] == ["add", "search", "list", "delete"] for m in manifests)
    assert all(m.required == ["action"] and 2 <= len(m.examples) <= 3 for m in manifests)
