-- Post-game reviews: the engine's verdict on every move of a finished game, kept so
-- that asking again is instant. ``data`` is the review as JSON (bot/review.py writes and reads
-- it, and carries its own format number: a review of an older format is made again).
CREATE TABLE game_reviews (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id),
    data       TEXT NOT NULL,
    made_at    INTEGER NOT NULL
) STRICT;

-- Puzzle solvers per server: a rating against the puzzles (each puzzle counts as a
-- fixed-strength opponent), the run of puzzles solved in a row, and the attempt in progress
-- (JSON from bot/puzzles.py; NULL when none).
CREATE TABLE puzzle_players (
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    rating       INTEGER NOT NULL,
    streak       INTEGER NOT NULL DEFAULT 0 CHECK (streak >= 0),
    best_streak  INTEGER NOT NULL DEFAULT 0 CHECK (best_streak >= 0),
    solved       INTEGER NOT NULL DEFAULT 0 CHECK (solved >= 0),
    failed       INTEGER NOT NULL DEFAULT 0 CHECK (failed >= 0),
    attempt      TEXT,
    PRIMARY KEY (guild_id, user_id)
) STRICT;
CREATE INDEX puzzle_players_by_rating ON puzzle_players (guild_id, rating DESC);
CREATE INDEX puzzle_players_by_user ON puzzle_players (user_id);

-- The daily puzzle: the channel a server chose for it and the last day (UTC,
-- YYYY-MM-DD) one was posted there, so a restart never posts a day's puzzle twice.
CREATE TABLE daily_puzzles (
    guild_id    INTEGER PRIMARY KEY,
    channel_id  INTEGER NOT NULL,
    last_day    TEXT
) STRICT;
