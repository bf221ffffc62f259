-- Languages: the language a server's public messages use (boards, game-over lines,
-- pings, thread names) when an admin chose one, and the language a member chose for the
-- bot's replies to them. Neither row exists until someone chooses: the bot then follows
-- Discord (the server's and the member's own locale). Values are bot/i18n.py LANGUAGES ids.
-- Forget-me deletes a member's row.
CREATE TABLE guild_languages (
    guild_id  INTEGER PRIMARY KEY,
    language  TEXT NOT NULL
) STRICT;

CREATE TABLE user_languages (
    user_id     INTEGER PRIMARY KEY,
    language    TEXT NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
