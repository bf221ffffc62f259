-- The servers' pairing queues (storage.club.QueueEntry): who waits for which game, at what
-- rating, since when, and where to reach them, so that a restart loses nobody's place. A
-- member waits in one queue at a time: the primary key is theirs. Times are INTEGER
-- microseconds since the epoch, like games'.
CREATE TABLE queue_entries (
    user_id     INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    game        TEXT    NOT NULL,             -- a game spec's name
    rule        TEXT    NOT NULL,
    rating      REAL    NOT NULL,
    joined_at   INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,             -- where they asked
    in_thread   INTEGER NOT NULL CHECK (in_thread IN (0, 1)),
    language    TEXT    NOT NULL,
    token       TEXT,                         -- the interaction token (a secret)
    message_id  INTEGER                       -- their private answer
) STRICT;

-- A server's queue, read back at start-up.
CREATE INDEX queue_entries_by_guild ON queue_entries (guild_id, joined_at);
