-- The games a table may hold are the ones registered in engine.games, not a list in the
-- schema: the CHECKs naming them go from games and player_stats (the code checks the name).
--
-- SQLite drops a CHECK only by rebuilding the table, and other tables reference games.
-- With the foreign keys deferred, dropping games leaves the rows that point at it waiting
-- for the new table, which gets every row back before the commit checks them. The two
-- tables whose rows would go with their game (ON DELETE CASCADE) are kept aside and put back.

PRAGMA defer_foreign_keys = ON;

CREATE TABLE games_kept AS SELECT * FROM games;
CREATE TABLE pending_replies_kept AS SELECT * FROM pending_replies;
CREATE TABLE turn_pings_kept AS SELECT * FROM turn_pings;

DROP TABLE games;

CREATE TABLE games (
    id                  INTEGER PRIMARY KEY,
    guild_id            INTEGER,                    -- NULL: the terminal front-end
    channel_id          INTEGER NOT NULL,
    game                TEXT    NOT NULL,           -- a game of engine.games
    width               INTEGER NOT NULL CHECK (width > 0),
    height              INTEGER NOT NULL CHECK (height > 0),
    rule                TEXT    NOT NULL CHECK (rule IN ('freestyle', 'standard', 'renju', 'caro')),
    black_user_id       INTEGER,
    black_level         TEXT,
    white_user_id       INTEGER,
    white_level         TEXT,
    status              TEXT    NOT NULL
        CHECK (status IN ('pending', 'active', 'finished', 'declined', 'cancelled', 'expired')),
    termination         TEXT
        CHECK (termination IN ('five', 'resign', 'timeout', 'draw', 'forbidden', 'abandoned')),
    winner              TEXT    CHECK (winner IN ('black', 'white')),
    rated               INTEGER NOT NULL CHECK (rated IN (0, 1)),
    message_channel_id  INTEGER,
    message_id          INTEGER,
    deadline            INTEGER,                    -- challenge expiry or turn deadline
    warning_sent        INTEGER NOT NULL DEFAULT 0 CHECK (warning_sent IN (0, 1)),
    turn_seconds        INTEGER CHECK (turn_seconds > 0),
    created_by          INTEGER,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    finished_at         INTEGER,
    ply                 INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
    version             INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    ended_by            INTEGER,
    end_reason          TEXT    CHECK (end_reason IN ('moderator', 'idle', 'replaced')),
    parent_channel_id   INTEGER,
    CHECK (black_user_id IS NULL OR black_level IS NULL),
    CHECK (white_user_id IS NULL OR white_level IS NULL),
    CHECK ((status = 'finished') = (termination IS NOT NULL)),
    CHECK (winner IS NULL OR termination IS NOT NULL),
    CHECK (deadline IS NULL OR status IN ('pending', 'active')),
    CHECK ((finished_at IS NULL) = (status IN ('pending', 'active')))
) STRICT;

INSERT INTO games (
    id, guild_id, channel_id, game, width, height, rule, black_user_id, black_level,
    white_user_id, white_level, status, termination, winner, rated, message_channel_id,
    message_id, deadline, warning_sent, turn_seconds, created_by, created_at, updated_at,
    finished_at, ply, version, ended_by, end_reason, parent_channel_id
)
SELECT
    id, guild_id, channel_id, game, width, height, rule, black_user_id, black_level,
    white_user_id, white_level, status, termination, winner, rated, message_channel_id,
    message_id, deadline, warning_sent, turn_seconds, created_by, created_at, updated_at,
    finished_at, ply, version, ended_by, end_reason, parent_channel_id
FROM games_kept;

INSERT INTO pending_replies (token, game_id, application_id, message_id, user_id, created_at)
SELECT token, game_id, application_id, message_id, user_id, created_at FROM pending_replies_kept;
INSERT INTO turn_pings (game_id, channel_id, message_id, version)
SELECT game_id, channel_id, message_id, version FROM turn_pings_kept;

DROP TABLE games_kept;
DROP TABLE pending_replies_kept;
DROP TABLE turn_pings_kept;

CREATE UNIQUE INDEX games_open_by_channel ON games (channel_id)
    WHERE status IN ('pending', 'active');
CREATE INDEX games_open ON games (id) WHERE status IN ('pending', 'active');
CREATE INDEX games_by_deadline ON games (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX games_by_black_user ON games (black_user_id, id) WHERE black_user_id IS NOT NULL;
CREATE INDEX games_by_white_user ON games (white_user_id, id) WHERE white_user_id IS NOT NULL;
CREATE INDEX games_finished_at ON games (finished_at) WHERE status = 'finished';

CREATE TABLE player_stats_of_any_game (
    scope         INTEGER NOT NULL,
    game          TEXT    NOT NULL,                 -- a game of engine.games
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

INSERT INTO player_stats_of_any_game (
    scope, game, rule, user_id, mu, sigma, ordinal, wins_black, wins_white, losses_black,
    losses_white, draws_black, draws_white, streak, best_streak, updated_at
)
SELECT
    scope, game, rule, user_id, mu, sigma, ordinal, wins_black, wins_white, losses_black,
    losses_white, draws_black, draws_white, streak, best_streak, updated_at
FROM player_stats;

DROP TABLE player_stats;
ALTER TABLE player_stats_of_any_game RENAME TO player_stats;

-- Leaderboards, per guild and overall.
CREATE INDEX player_stats_leaderboard ON player_stats (scope, game, rule, ordinal DESC, user_id);
-- Deleting a user's data.
CREATE INDEX player_stats_by_user ON player_stats (user_id);
