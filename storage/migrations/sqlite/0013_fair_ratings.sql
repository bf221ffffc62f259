-- Ratings per game kind and rule: a Gomoku rating under freestyle says nothing about renju,
-- so each rule keeps its own (the other games have one rule, freestyle). Ratings kept so far
-- go to freestyle, the rule every game has unless its guild or its challenger chose another.

CREATE TABLE player_stats_by_rule (
    scope         INTEGER NOT NULL,
    game          TEXT    NOT NULL CHECK (game IN ('gomoku', 'tictactoe', 'connect4', 'gravity3')),
    rule          TEXT    NOT NULL DEFAULT 'freestyle'
        CHECK (rule IN ('freestyle', 'standard', 'renju', 'caro')),
    user_id       INTEGER NOT NULL,
    mu            REAL    NOT NULL,
    sigma         REAL    NOT NULL CHECK (sigma > 0),
    ordinal       REAL    NOT NULL,                 -- mu - 3 sigma, stored to be indexed
    wins_black    INTEGER NOT NULL DEFAULT 0,
    wins_white    INTEGER NOT NULL DEFAULT 0,
    losses_black  INTEGER NOT NULL DEFAULT 0,
    losses_white  INTEGER NOT NULL DEFAULT 0,
    draws_black   INTEGER NOT NULL DEFAULT 0,
    draws_white   INTEGER NOT NULL DEFAULT 0,
    streak        INTEGER NOT NULL DEFAULT 0,       -- +n wins, -n losses in a row
    best_streak   INTEGER NOT NULL DEFAULT 0,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (scope, game, rule, user_id)
) STRICT, WITHOUT ROWID;

INSERT INTO player_stats_by_rule (
    scope, game, rule, user_id, mu, sigma, ordinal, wins_black, wins_white, losses_black,
    losses_white, draws_black, draws_white, streak, best_streak, updated_at
)
SELECT
    scope, game, 'freestyle', user_id, mu, sigma, ordinal, wins_black, wins_white, losses_black,
    losses_white, draws_black, draws_white, streak, best_streak, updated_at
FROM player_stats;

DROP TABLE player_stats;
ALTER TABLE player_stats_by_rule RENAME TO player_stats;

-- Leaderboards, per guild and overall.
CREATE INDEX player_stats_leaderboard ON player_stats (scope, game, rule, ordinal DESC, user_id);
-- Deleting a user's data.
CREATE INDEX player_stats_by_user ON player_stats (user_id);

-- A guild may give its rated games no opening rule and colours by a coin toss ('random')
-- rather than an opening rule; without a row they open with swap2.
CREATE TABLE guild_openings_fair (
    guild_id       INTEGER PRIMARY KEY REFERENCES guild_settings (guild_id) ON DELETE CASCADE,
    rated_opening  TEXT    NOT NULL
        CHECK (rated_opening IN ('swap', 'swap2', 'soosorv8', 'taraguchi10', 'random'))
) STRICT;
INSERT INTO guild_openings_fair (guild_id, rated_opening)
SELECT guild_id, rated_opening FROM guild_openings;
DROP TABLE guild_openings;
ALTER TABLE guild_openings_fair RENAME TO guild_openings;
