"""The embedded default provider: a GGUF model run in-process by llama.cpp (``llama-cpp-python``)."""

from agent.providers.llama.provider import (
    BRANCH_SEQUENCES,
    INSTALL_HINT,
    SHIPPED_VECTORS,
    LocalProvider,
    ReplyCursor,
    _sequences_at_most,
    _Vectors,
    from_settings,
    import_llama_cpp,
    read_vectors,
)

__all__ = ["LocalProvider", "ReplyCursor", "from_settings", "import_llama_cpp", "read_vectors", "INSTALL_HINT",
           "SHIPPED_VECTORS", "BRANCH_SEQUENCES", "_sequences_at_most", "_Vectors"]
