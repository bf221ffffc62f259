-- Per-guild preferences. A guild without a row uses the defaults in GuildSettings.

CREATE TABLE guild_settings (
    guild_id      bigint  PRIMARY KEY,
    default_rule  text    NOT NULL CHECK (default_rule IN ('freestyle', 'standard', 'renju', 'caro')),
    turn_seconds  integer CHECK (turn_seconds > 0),
    board_style   text    NOT NULL,
    updated_at    timestamptz NOT NULL
);

-- No rows for a guild: games are allowed in every channel.
CREATE TABLE guild_allowed_channels (
    guild_id    bigint NOT NULL REFERENCES guild_settings (guild_id) ON DELETE CASCADE,
    channel_id  bigint NOT NULL,
    PRIMARY KEY (guild_id, channel_id)
);
