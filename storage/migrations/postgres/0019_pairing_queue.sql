-- The servers' pairing queues: the PostgreSQL twin of sqlite/0019_pairing_queue.sql. Who
-- waits for which game, at what rating, since when, and where to reach them, so that a
-- restart loses nobody's place. A member waits in one queue at a time: the primary key is
-- theirs.
CREATE TABLE queue_entries (
    user_id     bigint  PRIMARY KEY,
    guild_id    bigint  NOT NULL,
    game        text    NOT NULL,             -- a game spec's name
    rule        text    NOT NULL,
    rating      double precision NOT NULL,
    joined_at   timestamptz NOT NULL,
    channel_id  bigint  NOT NULL,             -- where they asked
    in_thread   boolean NOT NULL,
    language    text    NOT NULL,
    token       text,                         -- the interaction token (a secret)
    message_id  bigint                        -- their private answer
);

-- A server's queue, read back at start-up.
CREATE INDEX queue_entries_by_guild ON queue_entries (guild_id, joined_at);
