"""The game without Discord: the service and its use cases, errors, the AI runners, admission.

Nothing here imports discord.py or the words people read (``bot.text``).
"""
