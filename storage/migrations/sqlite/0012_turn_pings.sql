-- Turn pings kept across restarts: the newest "your move" message of a game between people, so
-- a new process deletes it when the next ping replaces it or the game ends (before this, the
-- ids lived in memory and a restart left the old ping behind). One row a game at most; no
-- user id is kept (the message's id and the channel it is in).
CREATE TABLE turn_pings (
    game_id     INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    channel_id  INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    version     INTEGER NOT NULL  -- the game's version the ping announced
) STRICT;
