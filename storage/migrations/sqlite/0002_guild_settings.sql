-- Per-guild preferences. A guild without a row uses the defaults in GuildSettings.

CREATE TABLE guild_settings (
    guild_id      INTEGER PRIMARY KEY,
    default_rule  TEXT    NOT NULL CHECK (default_rule IN ('freestyle', 'standard', 'renju', 'caro')),
    turn_seconds  INTEGER CHECK (turn_seconds > 0),
    board_style   TEXT    NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;

-- No rows for a guild: games are allowed in every channel.
CREATE TABLE guild_allowed_channels (
    guild_id    INTEGER NOT NULL REFERENCES guild_settings (guild_id) ON DELETE CASCADE,
    channel_id  INTEGER NOT NULL,
    PRIMARY KEY (guild_id, channel_id)
) STRICT, WITHOUT ROWID;
