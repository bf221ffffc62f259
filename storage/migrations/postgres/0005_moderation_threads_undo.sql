-- Moderation, threads and stored undo requests: the PostgreSQL twin of
-- sqlite/0005_moderation_threads_undo.sql.

-- A game ended without a result by someone other than its players, or by itself:
-- who ended it (a moderator, or the player who replaced it) and why.
ALTER TABLE games ADD COLUMN ended_by bigint;
ALTER TABLE games ADD COLUMN end_reason text
    CHECK (end_reason IN ('moderator', 'idle', 'replaced'));
-- A game hosted in its own thread: the channel the thread hangs off, which gets one line when
-- the game starts and one when it ends. NULL: the game lives in the channel itself.
ALTER TABLE games ADD COLUMN parent_channel_id bigint;
-- Forgetting a user who only ended games.
CREATE INDEX games_by_ender ON games (ended_by) WHERE ended_by IS NOT NULL;

ALTER TABLE guild_settings ADD COLUMN use_threads boolean NOT NULL DEFAULT false;
ALTER TABLE guild_settings ADD COLUMN moderator_role_id bigint;  -- may /gomoku end, besides Manage Messages
ALTER TABLE guild_settings ADD COLUMN idle_human_seconds integer CHECK (idle_human_seconds > 0);
ALTER TABLE guild_settings ADD COLUMN idle_ai_seconds integer CHECK (idle_ai_seconds > 0);

-- An undo request waiting for the opponent. Valid only while the game is at ``version``;
-- any change of the game makes it stale (it is then ignored, and replaced by the next one).
CREATE TABLE undo_requests (
    game_id    bigint  PRIMARY KEY REFERENCES games (id),
    requester  bigint  NOT NULL,
    responder  bigint  NOT NULL,
    version    integer NOT NULL,
    moves      integer NOT NULL CHECK (moves > 0),
    made_at    timestamptz NOT NULL
);
CREATE INDEX undo_requests_by_requester ON undo_requests (requester);
CREATE INDEX undo_requests_by_responder ON undo_requests (responder);
