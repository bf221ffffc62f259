-- Post-game reviews (issue 12): the engine's verdict on every move of a finished game, kept so
-- that asking again is instant. ``data`` is the review as JSON (bot/review.py writes and reads
-- it, and carries its own format number: a review of an older format is made again).
CREATE TABLE game_reviews (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id),
    data       TEXT NOT NULL,
    made_at    INTEGER NOT NULL
) STRICT;
