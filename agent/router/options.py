"""The router's levers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RouterOptions:
    """The decision's levers. The defaults are the values ``bench/routing`` measures best (see bench/RESULTS.md)."""

    few_shot: bool = True  # the manifests' examples (and built-in no-tool messages) as chat turns
    reply_room: int = 768  # tokens the tool prompt leaves free for the conversation, the message and the reply
    one_prompt_up_to: int = 40  # a set of this many tools or fewer is decided in one prompt (its few-shot turns cut to fit)
    candidates: int = 16  # with more tools, a decision is made among this many: a fixed core, and ...
    retrieved: int = 4  # ... this many more found by retrieval for the message, listed in its turn ...
    listed_bias: float = 0.0  # ... added to their scores (the model favours a tool listed after the message)
    encoder: bool = True  # retrieval also weighs a sentence encoder made for it, when installed (riverse[retrieval])
    gloss: bool = True  # ... and a Chinese/Japanese message glossed word by word in English, when installed (agent.router.glossary)
    retrieve_in_english: bool = False  # retrieval also reads a Chinese/Japanese message translated, for English tool texts
    shots_per_tool: int = 4  # how many of each tool's examples become few-shot turns (retrieval uses all)
    none_bias: float = 0.5  # added to the log-probability of "no tool"
    vector_weight: float = 80.0  # times the best cosine similarity of the message's and an example's vectors
    unquoted_none: bool = True  # ... no tool's with what the message quotes left out (a name it gives)
    described_weight: float = 10.0  # a tool without examples of its own: times how far the similarity of the message's ...
    described_floor: float = 0.5  # ... and its name and description's vectors lies above this
    meant_weight: float = 20.0  # a tool without examples of its own: times how far the encoder's similarity of the message (in
    meant_floor: float = 0.3  # ... English, or glossed) and its name and description lies above this (riverse[retrieval])
    list_unmeant: bool = False  # with many tools, list a retrieved tool the encoder finds below meant_floor (it only costs time) ...
    listed_first: int = 1  # ... but list the likeliest this many retrieved tools whatever the encoder finds
    word_weight: float = 0.0  # times how far a tool's words fall short of the best-matching tool's (0 to -1; BM25)
    copy_optional: bool = True  # optional parameters: copy from the message (or leave out), never invent
    leave_out_unsaid: bool = True  # an optional value equal to its default, or already another parameter's, is left out
    copy_foreign: bool = True  # a value in another script than the message: copy it from the message instead
    copy_invented: bool = True  # a string value with a number the message lacks (an example's "12345"): copied, or missing
    whole_words: bool = True  # a copied value is the whole word it was cut from; a place name the model could not copy, the message's
    lists: bool = True  # a list parameter's value with the items the message lists with the one written ("ui と bug")
    said_choices: bool = True  # an optional boolean against its default, or object, only when the message speaks of it
    named_members: bool = True  # an enum member the message names by its words, over the model's pick it names not
    member_weight: float = 10.0  # ... and where it names none, times an enum member's closeness to the message's words (encoder)
    valid_values: bool = True  # a written value its parameter's JSON schema refuses: left out, or (required) missing
    value_forms: bool = True  # a value whose description asks for an IANA zone or a currency code is written in that form
    copy_numbers: bool = True  # a required number, when the message has digits: copied from the message
    spoken_numbers: bool = True  # ... with the numbers it says in words in digits ("twenty percent", 二十四度)
    number_fit: bool = True  # a number the message states that the chosen call has no place for: ...
    number_margin: float = 3.0  # ... a tool within this of its score that has a parameter for it is called instead
    missing_margin: float = 8.0  # a call that misses a required value: a tool within this of its score that the model prefers to no tool
    max_value_tokens: int = 40  # per parameter value
    link_weight: float = 6.0  # added to tools with a required "format": "uri" parameter when the message has a link
    follow_weight: float = 3.0  # added to the previous turn's tools for a short message after it (a follow-up)
    marked_follow_weight: float = 3.0  # added again when it reads "and X?", "X呢", "Xは？" (agent.router.references)
    chain_margin: float = 3.0  # another tool within this of the chosen one's score: a second step may follow its result
    write_examples: bool = True  # tools without examples: the model writes some when the tool prompt is prepared ...
    write_all_up_to: int = 64  # ... for every tool of a set this large or smaller; of a larger one, for the core's only
    model_quotes: bool = True  # opening quotes written with what follows (``"(``, ``"/`` are single tokens)
