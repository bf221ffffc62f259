"""The Discord bot and the terminal front-end over one game service."""
