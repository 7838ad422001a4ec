"""``python -m llama_cpp.server`` as the tests start it: with the embedded model's loading guard
(:func:`agent.providers.llama.adapter.safe_buffers`: no AMX buffer type on a CPU with AMX, where
llama.cpp's AMX kernels crash), the server's own command line otherwise."""

from __future__ import annotations

import runpy

import llama_cpp

from agent.providers.llama.adapter import safe_buffers

if __name__ == "__main__":
    with safe_buffers(llama_cpp):
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
