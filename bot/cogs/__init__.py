"""Slash commands, thin Discord adapters: ``/gomoku ...`` (play, history, stats, moderation,
help), ``/gomoku-admin settings`` and ``/place``."""
