"""Tools around the search: the Gomocup protocol and its brain (``pbrain``), the match referee,
the balanced openings, the tactical suite and the bench. Built on ``engine`` and
``engine.search``; nothing below imports this package."""
