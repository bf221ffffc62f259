-- Phone play: the PostgreSQL twin of sqlite/0004_phone_play.sql. Per-guild turn
-- pings and clocks in games against the AI, each user's board view, and the deferred replies a
-- restart must still answer.

ALTER TABLE guild_settings ADD COLUMN turn_pings boolean NOT NULL DEFAULT true;
ALTER TABLE guild_settings ADD COLUMN ai_clock boolean NOT NULL DEFAULT false;

CREATE TABLE user_settings (
    user_id     bigint PRIMARY KEY,
    board_view  text   NOT NULL,
    updated_at  timestamptz NOT NULL
);

-- A "thinking..." reply waiting for the AI's move; the row goes when the reply is filled in.
CREATE TABLE pending_replies (
    token           text   PRIMARY KEY,
    game_id         bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    application_id  bigint NOT NULL,
    message_id      bigint NOT NULL,
    user_id         bigint NOT NULL,
    created_at      timestamptz NOT NULL
);
-- Forgetting a user.
CREATE INDEX pending_replies_by_user ON pending_replies (user_id);
