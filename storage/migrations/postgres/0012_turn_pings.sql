-- Turn pings kept across restarts: the PostgreSQL twin of sqlite/0012_turn_pings.sql. The
-- newest "your move" message of a game between people, one row a game at most, so a new
-- process deletes it when the next ping replaces it or the game ends.
CREATE TABLE turn_pings (
    game_id     bigint  PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    channel_id  bigint  NOT NULL,
    message_id  bigint  NOT NULL,
    version     integer NOT NULL  -- the game's version the ping announced
);
