"""Riverse: a local-first personal AI agent whose abilities are plug-in tools."""

__version__ = "0.1.0"
