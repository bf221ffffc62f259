-- Post-game reviews and puzzles: the PostgreSQL twin of sqlite/0008_reviews.sql.

-- The engine's verdict on every move of a finished game (JSON written by bot/review.py).
CREATE TABLE game_reviews (
    game_id    bigint PRIMARY KEY REFERENCES games (id),
    data       text   NOT NULL,
    made_at    timestamptz NOT NULL
);

-- Puzzle solvers per server: a rating against the puzzles, the run of puzzles solved in a
-- row, and the attempt in progress (JSON from bot/puzzles.py; NULL when none).
CREATE TABLE puzzle_players (
    guild_id     bigint  NOT NULL,
    user_id      bigint  NOT NULL,
    rating       integer NOT NULL,
    streak       integer NOT NULL DEFAULT 0 CHECK (streak >= 0),
    best_streak  integer NOT NULL DEFAULT 0 CHECK (best_streak >= 0),
    solved       integer NOT NULL DEFAULT 0 CHECK (solved >= 0),
    failed       integer NOT NULL DEFAULT 0 CHECK (failed >= 0),
    attempt      text,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX puzzle_players_by_rating ON puzzle_players (guild_id, rating DESC);
CREATE INDEX puzzle_players_by_user ON puzzle_players (user_id);

-- The daily puzzle: the channel a server chose and the last day (UTC, YYYY-MM-DD) one was
-- posted there, so a restart never posts a day's puzzle twice.
CREATE TABLE daily_puzzles (
    guild_id    bigint PRIMARY KEY,
    channel_id  bigint NOT NULL,
    last_day    text
);
