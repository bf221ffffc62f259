"""The web board: the game in a browser, and inside Discord as an Activity.

``server`` serves the page (``static/``) and a WebSocket per open page, and plays moves
through the same ``GameService`` as ``/place``; ``hub`` fans every stored change of a game out
to the pages that show it; ``tokens`` mints and checks the signed passes that say who may
play or watch; ``state`` turns a game into what the page draws; ``activity`` speaks OAuth2
with Discord for the Activity. Free of discord.py: the Discord layer hands the server a
``BoardHooks`` to redraw the Discord board after a move from the web.
"""
