-- Languages: the PostgreSQL twin of sqlite/0010_languages.sql. A server's
-- chosen language for public messages and a member's chosen language for replies; no row
-- means "follow Discord". Forget-me deletes a member's row.
CREATE TABLE guild_languages (
    guild_id  bigint PRIMARY KEY,
    language  text   NOT NULL
);

CREATE TABLE user_languages (
    user_id     bigint PRIMARY KEY,
    language    text   NOT NULL,
    updated_at  timestamptz NOT NULL
);
