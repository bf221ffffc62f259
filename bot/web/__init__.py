"""The web board: the game in a browser, and inside Discord as an Activity.

``server`` serves the page (``static/``), a WebSocket per open page, and the Activity's OAuth2
routes, and plays moves through the same ``GameService`` as ``/place``; ``hub`` fans every
stored change of a game out to the pages that show it; ``tokens`` mints and checks the signed
passes that say who may play or watch; ``frames`` says what a page may send and at what pace;
``state`` turns a game into what the page draws.
``activity/`` holds the Activity's client (the Embedded App SDK), which ``make web`` bundles
into ``static/dist/``. Free of discord.py: the Discord layer (``bot.weblink``) hands the
server a ``BoardHooks`` for the players' names and the board of a game started from the page;
a move or a choice from the web reaches the Discord board and the AI as an event of the
service (``bot.core.service.events``), like any other.
"""
