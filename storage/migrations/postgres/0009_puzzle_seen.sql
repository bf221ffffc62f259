-- The puzzles each member has finished per server: the PostgreSQL twin of
-- sqlite/0009_puzzle_seen.sql.
CREATE TABLE puzzle_seen (
    guild_id    bigint NOT NULL,
    user_id     bigint NOT NULL,
    puzzle_key  text   NOT NULL,
    PRIMARY KEY (guild_id, user_id, puzzle_key)
);
CREATE INDEX puzzle_seen_by_user ON puzzle_seen (user_id);

-- Puzzles found in a server's own finished Gomoku games (JSON list from bot/puzzles.py,
-- empty when none: the row also says the game was searched).
CREATE TABLE game_puzzles (
    game_id  bigint PRIMARY KEY REFERENCES games (id),
    data     text   NOT NULL,
    made_at  timestamptz NOT NULL
);
CREATE INDEX games_finished_at ON games (finished_at) WHERE status = 'finished';
