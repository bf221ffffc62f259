-- Ratings (OpenSkill Plackett-Luce) and records of rated games, per game kind, kept both
-- overall (scope 0) and per guild (scope = guild id; Discord ids are never 0).

CREATE TABLE player_stats (
    scope         bigint  NOT NULL,
    game          text    NOT NULL CHECK (game IN ('gomoku', 'tictactoe', 'connect4', 'gravity3')),
    user_id       bigint  NOT NULL,
    mu            double precision NOT NULL,
    sigma         double precision NOT NULL CHECK (sigma > 0),
    ordinal       double precision NOT NULL,        -- mu - 3 sigma, stored to be indexed
    wins_black    integer NOT NULL DEFAULT 0,
    wins_white    integer NOT NULL DEFAULT 0,
    losses_black  integer NOT NULL DEFAULT 0,
    losses_white  integer NOT NULL DEFAULT 0,
    draws_black   integer NOT NULL DEFAULT 0,
    draws_white   integer NOT NULL DEFAULT 0,
    streak        integer NOT NULL DEFAULT 0,       -- +n wins, -n losses in a row
    best_streak   integer NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (scope, game, user_id)
);

-- Leaderboards, per guild and overall.
CREATE INDEX player_stats_leaderboard ON player_stats (scope, game, ordinal DESC, user_id);
-- Deleting a user's data.
CREATE INDEX player_stats_by_user ON player_stats (user_id);
