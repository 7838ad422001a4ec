"""Riverse's benchmarks: run each from the repository root as a module, e.g. ``.venv/bin/python -m bench.routing.run``."""
