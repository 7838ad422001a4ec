"""The JSON protocol's tolerant parser, and the store's migrations."""

from __future__ import annotations

import sqlite3

import pytest

from agent.storage.migrations import MIGRATIONS, migrate
from agent.loop.replies import parse_reply
from agent.storage import open_store


@pytest.mark.parametrize(
    "text,name,args",
    [
        ('{"tool_calls": [{"name": "weather", "params": {"city": "Tokyo"}}]}', "weather", {"city": "Tokyo"}),
        ('{"tool": "weather", "params": {"city": "東京"}}', "weather", {"city": "東京"}),
        ('{"name": "weather", "arguments": "{\\"city\\": \\"Paris\\"}"}', "weather", {"city": "Paris"}),
        ("```json\n{'tool': 'weather', 'params': {'city': 'Oslo',},}\n```", "weather", {"city": "Oslo"}),
        ('I will check. {"tool": "weather", "params": {"city": "Rome"}} Done.', "weather", {"city": "Rome"}),
        ('[{"tool": "weather", "params": {"city": "Lima"}}]', "weather", {"city": "Lima"}),
        ('{"function": {"name": "weather", "arguments": {"city": "Kyiv"}}}', "weather", {"city": "Kyiv"}),
        ('{"tool": "calc", "params": {"x": true, "y": null}}', "calc", {"x": True, "y": None}),
    ],
)
def test_tool_call_shapes(text, name, args):
    reply = parse_reply(text)
    assert reply.kind == "calls"
    assert (reply.calls[0].name, reply.calls[0].arguments) == (name, args)


@pytest.mark.parametrize(
    "text,kind",
    [
        ("Hello! How can I help?", "text"),
        ("Sets look like {1, 2} in Python.", "text"),
        ('{"tool": "none"}', "text"),
        ('{"answer": "Paris"}', "text"),
        ('{"tool_calls": [{"name": "weather", "params": {"city": "Tok', "malformed"),
        ('{"tool_calls": "weather"}', "malformed"),
        ('{"tool": 42}', "malformed"),
    ],
)
def test_text_and_malformed_replies(text, kind):
    assert parse_reply(text).kind == kind


def test_answer_field_is_the_text():
    assert parse_reply('{"answer": "Paris"}').text == "Paris"


def test_migrations_run_once_in_order_on_an_in_memory_database():
    db = sqlite3.connect(":memory:")
    applied = migrate(db)
    assert applied == [m.__name__ for m in MIGRATIONS] and applied[0] == "m001_initial"
    assert migrate(db) == []
    names = [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert names == applied


def test_store_round_trip_and_delete_cascades(tmp_path):
    store = open_store(tmp_path / "r.db")
    cid = store.new_conversation()
    store.add_message(cid, "user", "hello there, this is a long first message used as the title")
    store.add_message(cid, "assistant", "hi")
    assert store.get_conversation(cid)["title"].startswith("hello there")
    assert store.history(cid, 1) == [
        {"role": "user", "content": "hello there, this is a long first message used as the title"},
        {"role": "assistant", "content": "hi"},
    ]
    assert store.delete_conversation(cid) is True
    assert store.messages(cid) == [] and store.get_conversation(cid) is None
