-- Phone play: per-guild turn pings and clocks in games against the AI, each user's
-- board view, and the deferred replies a restart must still answer.

ALTER TABLE guild_settings ADD COLUMN turn_pings INTEGER NOT NULL DEFAULT 1
    CHECK (turn_pings IN (0, 1));
ALTER TABLE guild_settings ADD COLUMN ai_clock INTEGER NOT NULL DEFAULT 0
    CHECK (ai_clock IN (0, 1));

CREATE TABLE user_settings (
    user_id     INTEGER PRIMARY KEY,
    board_view  TEXT    NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- A "thinking..." reply waiting for the AI's move; the row goes when the reply is filled in.
CREATE TABLE pending_replies (
    token           TEXT    PRIMARY KEY,
    game_id         INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    application_id  INTEGER NOT NULL,
    message_id      INTEGER NOT NULL,
    user_id         INTEGER NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT;
