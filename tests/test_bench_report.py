"""The routing bench's report: every row it prints has cases behind it."""

from bench.routing.conversations import Outcome, table


def outcome(case_id: str, language: str, right: bool) -> Outcome:
    case = {"id": case_id, "set": "toolsets", "split": "blind", "toolset": "finance", "lang": language, "tool": "get_quote"}
    return Outcome(case, "riverse", [("get_quote", {})] if right else [], 0.5, right=right, tool_right=right)


def test_a_run_of_one_language_reports_that_language_and_no_empty_rows():
    # `--lang ja` leaves no English or Chinese case: their rows were a median of nothing and the report crashed
    rows = table({"riverse": [outcome("ja-1", "ja", True), outcome("ja-2", "ja", False)]})
    labels = [row.split(" | ")[0].lstrip("| ") for row in rows[2:]]
    assert labels == ["toolsets · blind", "toolsets · finance", "toolsets · ja"]
    assert all(" | 2 | riverse | 50.0% | 50.0% | " in row for row in rows[2:])


def test_a_pooled_tool_set_holds_its_own_tools_first_then_the_others_up_to_the_size():
    from bench.routing.conversations import pooled, toolset_manifests

    own = [m.name for m in toolset_manifests("finance")[0]]
    pool = pooled("finance", 300)
    names = [m.name for m in pool]
    assert len(names) == len(set(names)) == 300 and names[:len(own)] == own
    assert {m.name for m in toolset_manifests("devops")[0]} <= set(names)  # every other set's tools too
    assert any(m.examples for m in pool[len(own):])  # generated ones, some with examples
