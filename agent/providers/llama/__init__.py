"""The embedded default provider: a GGUF model run in-process by llama.cpp (``llama-cpp-python``).

:mod:`~agent.providers.llama.provider` holds the provider, :mod:`~agent.providers.llama.context`
the chat model's context, :mod:`~agent.providers.llama.cursor` the router's reply cursor,
:mod:`~agent.providers.llama.vectors` sentence vectors, :mod:`~agent.providers.llama.adapter` every
call into llama-cpp-python, and :mod:`~agent.providers.llama.model_files` /
:mod:`~agent.providers.llama.model_check` the default model's file. Importing the package does not
import llama-cpp-python.
"""

from agent.providers.llama.adapter import INSTALL_HINT, LLAMA_CPP_VERSION, LlamaModel
from agent.providers.llama.context import BRANCH_SEQUENCES, Context
from agent.providers.llama.cursor import ReplyCursor
from agent.providers.llama.provider import LocalProvider, from_settings
from agent.providers.llama.vectors import SHIPPED_VECTORS, SentenceVectorContext, read_vectors

__all__ = [
    "BRANCH_SEQUENCES",
    "INSTALL_HINT",
    "LLAMA_CPP_VERSION",
    "SHIPPED_VECTORS",
    "Context",
    "LlamaModel",
    "LocalProvider",
    "ReplyCursor",
    "SentenceVectorContext",
    "from_settings",
    "read_vectors",
]
