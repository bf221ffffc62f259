"""Slash commands: ``/gomoku ...`` (play, stats, admin) and ``/place``; thin Discord adapters."""
