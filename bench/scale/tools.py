"""Generated tools for the scale benchmark: many domains, each with objects and actions, written as
MCP servers describe theirs (a name, an English description and a JSON schema), a fifth of them with
two example messages. Deterministic: the same count gives the same tools. None of the domains is one
of the built-in tools' (weather, time, arithmetic, units, files, notes, the web, the shell)."""

from __future__ import annotations

from dataclasses import replace

from agent.toolkit.base import ToolManifest

DOMAINS: dict[str, tuple[str, ...]] = {
    "crm": ("contact", "deal", "lead", "customer account"),
    "inventory": ("stock item", "warehouse", "stock level", "supplier"),
    "hr": ("employee", "leave request", "payslip", "job opening"),
    "shipping": ("parcel", "shipment", "delivery slot", "courier"),
    "music": ("playlist", "song", "album", "artist"),
    "recipes": ("recipe", "ingredient", "meal plan", "grocery list"),
    "fitness": ("workout", "step count", "heart rate log", "training plan"),
    "library": ("book loan", "book", "book reservation", "library card"),
    "parking": ("parking spot", "parking permit", "parking fine", "garage"),
    "garden": ("plant", "watering schedule", "seed order", "garden bed"),
    "helpdesk": ("support ticket", "support agent", "canned reply", "sla policy"),
    "cloud": ("virtual machine", "storage bucket", "dns record", "load balancer"),
    "school": ("course", "assignment", "grade", "class timetable"),
    "hotel": ("room booking", "hotel guest", "housekeeping task", "minibar charge"),
    "pets": ("vet appointment", "pet profile", "feeding plan", "vaccination record"),
    "car": ("service appointment", "fuel log", "tire pressure reading", "car rental"),
    "photos": ("photo album", "photo", "face tag", "print order"),
    "podcast": ("podcast episode", "podcast subscription", "listening queue", "episode transcript"),
    "social": ("social post", "follower", "direct message", "hashtag"),
    "games": ("saved game", "achievement", "leaderboard entry", "friend invite"),
    "printer": ("print job", "toner level", "print queue", "scanned page"),
    "energy": ("solar output", "home battery", "meter reading", "electricity tariff"),
    "insurance": ("insurance claim", "insurance policy", "insurance quote", "premium payment"),
    "legal": ("contract", "contract clause", "signature request", "case file"),
    "clinic": ("prescription", "lab result", "doctor appointment", "symptom log"),
    "realestate": ("property listing", "property viewing", "rental application", "mortgage estimate"),
    "events": ("event ticket", "venue", "seat map", "guest list"),
    "travel": ("flight booking", "boarding pass", "hotel reservation", "travel itinerary"),
    "banking": ("bank transfer", "card", "standing order", "account statement"),
    "projects": ("project task", "milestone", "sprint", "time entry"),
}

ACTIONS: tuple[tuple[str, str, dict[str, str], tuple[str, ...]], ...] = (
    ("create", "Create a new {o} in the {d} system", {"name": "Name of the new {o}", "details": "Optional details"},
     ("Create a new {o} named Alpha", "Add a {o} called Harbor")),
    ("get", "Get the details of one {o} by its ID", {"id": "ID of the {o}, e.g. {p}_1042"},
     ("Show me {o} {p}_1042", "What are the details of {o} {p}_77?")),
    ("list", "List the {o}s in the {d} system, newest first", {"limit": "How many to list (integer)"},
     ("List my {o}s", "Show the latest 5 {o}s")),
    ("update", "Change fields of an existing {o}", {"id": "ID of the {o}", "field": "Field to change", "value": "New value"},
     ("Rename {o} {p}_12 to Beacon", "Set the status of {o} {p}_9 to done")),
    ("delete", "Delete a {o} permanently", {"id": "ID of the {o} to delete"},
     ("Delete {o} {p}_31", "Remove the {o} {p}_8")),
    ("search", "Search {o}s in {d} by keyword", {"query": "Words to look for"},
     ("Find {o}s mentioning invoice", "Search {o}s for quarterly")),
    ("export", "Export all {o}s as a CSV file", {"since": "Only those changed since this date (YYYY-MM-DD)"},
     ("Export the {o}s to CSV", "Download all {o}s since 2026-01-01 as a spreadsheet")),
    ("count", "Count the {o}s that match a status", {"status": "Status to count, e.g. open"},
     ("How many open {o}s are there?", "Count the closed {o}s")),
    ("archive", "Archive an old {o} so it no longer shows in lists", {"id": "ID of the {o}"},
     ("Archive {o} {p}_5", "Move {o} {p}_300 to the archive")),
)


def generated(count: int) -> list[ToolManifest]:
    """``count`` tools (up to 1,080), spread over the domains first, then over actions and objects."""
    out: list[ToolManifest] = []
    for action_index, (verb, description, params, examples) in enumerate(ACTIONS):
        for object_index in range(4):
            for domain, objects in DOMAINS.items():
                if len(out) == count:
                    return out
                obj = objects[object_index]
                prefix = "".join(word[0] for word in obj.split())
                name = f"{domain}_{verb}_{obj.replace(' ', '_')}"
                fill = {"o": obj, "d": domain, "p": prefix}
                with_examples = (action_index + object_index + len(domain)) % 5 == 0
                out.append(ToolManifest(
                    name=name,
                    description=description.format(**fill),
                    parameters={key: text.format(**fill) for key, text in params.items()},
                    examples=[e.format(**fill) for e in examples] if with_examples else [],
                    parameter_types={"limit": "integer"} if "limit" in params else {},
                    required=[key for key in params if key not in ("details", "limit", "since")],
                ))
    return out


#: tools of the generated set that questions ask for (none has examples), with the questions:
#: (tool, language, message, expected parameters)
TARGETS = ("recipes_search_recipe", "parking_get_parking_fine", "music_create_playlist", "fitness_list_workout",
           "shipping_count_parcel")
QUESTIONS: tuple[tuple[str, str, str, dict[str, str]], ...] = (
    ("recipes_search_recipe", "en", "Find me some recipes with chickpeas", {"query": "chickpeas"}),
    ("recipes_search_recipe", "zh", "帮我找几个用鹰嘴豆做的菜谱", {"query": "鹰嘴豆"}),
    ("recipes_search_recipe", "ja", "ひよこ豆を使うレシピを探して", {"query": "ひよこ豆"}),
    ("parking_get_parking_fine", "en", "What are the details of parking fine pf_2231?", {"id": "pf_2231"}),
    ("parking_get_parking_fine", "zh", "帮我查一下停车罚单 pf_2231 的详情", {"id": "pf_2231"}),
    ("parking_get_parking_fine", "ja", "駐車違反 pf_2231 の詳細を見せて", {"id": "pf_2231"}),
    ("music_create_playlist", "en", "Make a new playlist called Road Trip", {"name": "Road Trip"}),
    ("music_create_playlist", "zh", "新建一个叫 Road Trip 的歌单", {"name": "Road Trip"}),
    ("music_create_playlist", "ja", "Road Trip という名前のプレイリストを作って", {"name": "Road Trip"}),
    ("fitness_list_workout", "en", "List my last 5 workouts", {"limit": "5"}),
    ("fitness_list_workout", "zh", "列出我最近的 5 次锻炼记录", {"limit": "5"}),
    ("fitness_list_workout", "ja", "最近のワークアウトを5件表示して", {"limit": "5"}),
    ("shipping_count_parcel", "en", "How many parcels are marked delivered?", {"status": "delivered"}),
    ("shipping_count_parcel", "zh", "有多少个包裹的状态是已送达？", {"status": "已送达"}),
    ("shipping_count_parcel", "ja", "配達済みの荷物はいくつある？", {"status": "配達済み"}),
)


def targets() -> list[ToolManifest]:
    """The tools the questions ask for, as they are generated, without examples."""
    every = {m.name: m for m in generated(len(DOMAINS) * 4 * len(ACTIONS))}
    return [replace(every[name], examples=[]) for name in TARGETS]


def distractors(count: int) -> list[ToolManifest]:
    """``count`` generated tools that are not targets."""
    return [m for m in generated(count + len(TARGETS)) if m.name not in TARGETS][:count]
