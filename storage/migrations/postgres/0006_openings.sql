-- Opening rules: the PostgreSQL twin of sqlite/0006_openings.sql. The rule a
-- game opens with, and the opening's steps that are not stones (stones are ordinary moves),
-- each written "<stones on the board>:<word>".

CREATE TABLE game_openings (
    game_id  bigint PRIMARY KEY REFERENCES games (id),
    rule     text   NOT NULL CHECK (rule IN ('swap', 'swap2', 'soosorv8', 'taraguchi10')),
    steps    text   NOT NULL DEFAULT ''
);

-- The opening rule a guild's rated games get when the challenger names none.
CREATE TABLE guild_openings (
    guild_id       bigint PRIMARY KEY REFERENCES guild_settings (guild_id) ON DELETE CASCADE,
    rated_opening  text   NOT NULL
        CHECK (rated_opening IN ('swap', 'swap2', 'soosorv8', 'taraguchi10'))
);
