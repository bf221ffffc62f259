-- Moderation, threads and stored undo requests.

-- A game ended without a result by someone other than its players, or by itself:
-- who ended it (a moderator, or the player who replaced it) and why.
ALTER TABLE games ADD COLUMN ended_by INTEGER;
ALTER TABLE games ADD COLUMN end_reason TEXT
    CHECK (end_reason IN ('moderator', 'idle', 'replaced'));
-- A game hosted in its own thread: the channel the thread hangs off, which gets one line when
-- the game starts and one when it ends. NULL: the game lives in the channel itself.
ALTER TABLE games ADD COLUMN parent_channel_id INTEGER;

ALTER TABLE guild_settings ADD COLUMN use_threads INTEGER NOT NULL DEFAULT 0
    CHECK (use_threads IN (0, 1));
ALTER TABLE guild_settings ADD COLUMN moderator_role_id INTEGER;  -- may /gomoku end, besides Manage Messages
ALTER TABLE guild_settings ADD COLUMN idle_human_seconds INTEGER CHECK (idle_human_seconds > 0);
ALTER TABLE guild_settings ADD COLUMN idle_ai_seconds INTEGER CHECK (idle_ai_seconds > 0);

-- An undo request waiting for the opponent. Valid only while the game is at ``version``;
-- any change of the game makes it stale (it is then ignored, and replaced by the next one).
CREATE TABLE undo_requests (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id),
    requester  INTEGER NOT NULL,
    responder  INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    moves      INTEGER NOT NULL CHECK (moves > 0),
    made_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX undo_requests_by_requester ON undo_requests (requester);
CREATE INDEX undo_requests_by_responder ON undo_requests (responder);
