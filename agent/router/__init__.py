"""The router: tool decisions that a small local model gets right, then a short grounded answer.

A 0.5B model asked to write a JSON tool call picks the wrong tool, invents calls for small talk and
misspells parameter names. The router asks it a narrower question and reads the answer from its
probabilities instead of its prose (``bench/routing`` measures each of these levers):

1. **One fixed prompt, cached.** The system prompt lists the tools (name, description, parameters)
   and is followed by few-shot turns made from the manifests' ``examples`` and ``extra_examples``
   (plus built-in messages that need no tool, in three languages). The tools are described in the
   language of the message (:meth:`ToolRegistry.manifests` with a language). Only the user's
   message comes after the prompt, so its KV state is computed once per tool set and language,
   kept on disk, and restored for every decision (see
   :meth:`agent.providers.llama.LocalProvider.open_reply`; ``riverse chat`` and
   ``riverse model --prepare`` compute it before the first message).
2. **A scored choice, not generated text.** After ``{"tool": "`` the model's log-probabilities of
   every real tool name and of ``none`` are compared (a token trie: one or two forward passes). The
   name is always a real tool; ``none`` gets a tuned bias, because small models over-call tools.
3. **Nearest examples as a second opinion.** The model's own sentence vector of the message (its
   hidden state at the end of a "this sentence means in one word" template, from a second llama.cpp
   context on the same weights) is compared with the vectors of every tool's examples and of the
   built-in no-tool messages; each option's best cosine similarity, weighted, is added to its
   score. The examples' vectors are computed with the prompt and kept on disk (those of the built-in
   tools ship with Riverse). A link in the message adds to the tools with a required
   ``"format": "uri"`` parameter.
4. **Parameters written into a fixed frame.** The reply continues as JSON whose keys are the
   tool's real parameters, in order; the model only writes the values (greedy, until the closing
   quote). Enum values are chosen like tool names, numbers can only be numbers, an optional value
   can only be copied from the message (it is stated there, or left out: never invented from the
   prompt's examples), a required number is copied from a message that has digits, and a value in
   another script than the message (Tokyo for 东京), or a Chinese or Japanese word the message does
   not contain, is copied from the message instead. The opening quote of each value is the model's
   to write, since ``"/`` and ``"(`` are single tokens (after a forced ``"`` the model drops the ``/``
   of ``/etc/hosts``). A tool whose required value comes out empty is not called.

Providers without scored decoding (OpenAI-compatible endpoints, the scripted fake) get the same
prompt and a JSON schema built from the manifests (``complete(..., json_schema=...)``); what comes
back is validated, and bad output means answering without a tool, with a notice, never an exception.

After the tool ran, the answer is generated from a small prompt: the question, the results of the
calls that succeeded and an instruction to answer briefly in the user's language (detected from the
message) using only those results; earlier turns are left out (a small model copies their figures).
With grounding on (the default for the embedded model) the loop checks that answer before it is
shown and says itself what failed (:mod:`agent.loop.guard`), and a message that no tool answered
but that asks for live data is answered with the reason it was not looked up
(:mod:`agent.router.live_data`).

The package, by file: :mod:`~agent.router.decision` (the :class:`Router`), :mod:`~agent.router.schema_decision`
(the decision of a provider that writes its call as JSON), :mod:`~agent.router.prompt` (its prompt and :class:`Decision`), :mod:`~agent.router.values` (how values are written),
:mod:`~agent.router.examples` (nearest examples), :mod:`~agent.router.texts` (its texts in three
languages), :mod:`~agent.router.options` (its levers), :mod:`~agent.router.protocol` (the loop
protocol ``router``) and :mod:`~agent.router.live_data` (live data no tool looked up).
"""

from agent.router.decision import Router
from agent.router.options import RouterOptions
from agent.router.prompt import Decision, DecisionPrompt
from agent.router.protocol import RouterProtocol
from agent.router.examples import ExampleVectors

__all__ = ["Router", "RouterOptions", "Decision", "DecisionPrompt", "RouterProtocol", "ExampleVectors"]
