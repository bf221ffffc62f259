"""Everything people read: catalogues, words, and the emoji, PNG and panel renderings.

Shared by the Discord layer and the terminal; free of discord.py.
"""
