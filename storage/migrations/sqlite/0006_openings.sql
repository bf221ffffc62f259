-- Opening rules (swap, swap2, Soosõrv-8, Taraguchi-10): the rule a game opens with, and the
-- opening's steps that are not stones (stones are ordinary moves). Each step is written
-- "<stones on the board>:<word>": a choice (black, white, two, offer), a number of fifth
-- moves, or a fifth-move offer (a point), so the opening is replayed by interleaving them
-- with the moves.

CREATE TABLE game_openings (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id),
    rule     TEXT    NOT NULL CHECK (rule IN ('swap', 'swap2', 'soosorv8', 'taraguchi10')),
    steps    TEXT    NOT NULL DEFAULT ''
) STRICT;

-- The opening rule a guild's rated games get when the challenger names none.
CREATE TABLE guild_openings (
    guild_id       INTEGER PRIMARY KEY REFERENCES guild_settings (guild_id) ON DELETE CASCADE,
    rated_opening  TEXT    NOT NULL
        CHECK (rated_opening IN ('swap', 'swap2', 'soosorv8', 'taraguchi10'))
) STRICT;
