-- The puzzles each member has finished per server: the PostgreSQL twin of
-- migrations/0009_puzzle_seen.sql.
CREATE TABLE puzzle_seen (
    guild_id    bigint NOT NULL,
    user_id     bigint NOT NULL,
    puzzle_key  text   NOT NULL,
    PRIMARY KEY (guild_id, user_id, puzzle_key)
);
CREATE INDEX puzzle_seen_by_user ON puzzle_seen (user_id);
