"""The base of every error a user can fix: its message says what is wrong and what to do."""


class RiverseError(Exception):
    """An expected failure: the CLI prints its message on one line and exits with status 1."""
