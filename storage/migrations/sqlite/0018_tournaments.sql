-- Tournaments the bot runs: their settings, entrants, rounds and boards (storage.club's
-- records, one table each). Times are INTEGER microseconds since the epoch, like games'.
-- A round is stored with its boards in one transaction, and the primary keys keep a round
-- from being paired twice and a player from sitting at two boards of one round.
CREATE TABLE tournaments (
    id                INTEGER PRIMARY KEY,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,           -- where it is announced
    name              TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    format            TEXT    NOT NULL CHECK (format IN ('swiss', 'round_robin', 'arena')),
    game              TEXT    NOT NULL,           -- a game spec's name
    rule              TEXT    NOT NULL,           -- '' for games without rules
    rounds            INTEGER NOT NULL CHECK (rounds >= 0),
    seconds_per_move  INTEGER NOT NULL CHECK (seconds_per_move > 0),
    player_cap        INTEGER CHECK (player_cap IS NULL OR player_cap >= 2),
    starts_at         INTEGER,
    arena_minutes     INTEGER CHECK (arena_minutes IS NULL OR arena_minutes > 0),
    status            TEXT    NOT NULL
        CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
    created_by        INTEGER NOT NULL,
    created_at        INTEGER NOT NULL,
    CHECK ((format = 'arena') = (arena_minutes IS NOT NULL))
) STRICT;

-- The tournaments to resume at start-up.
CREATE INDEX tournaments_live ON tournaments (guild_id, id) WHERE status IN ('open', 'running');

CREATE TABLE tournament_entrants (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id        INTEGER NOT NULL,
    rating         REAL    NOT NULL,
    seed           INTEGER NOT NULL DEFAULT 0 CHECK (seed >= 0),  -- 0: not seeded yet
    status         TEXT    NOT NULL CHECK (status IN ('active', 'withdrawn')),
    joined_at      INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE tournament_rounds (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    number         INTEGER NOT NULL CHECK (number >= 1),
    status         TEXT    NOT NULL CHECK (status IN ('paired', 'finished')),
    paired_at      INTEGER NOT NULL,
    deadline       INTEGER,
    PRIMARY KEY (tournament_id, number)
) STRICT, WITHOUT ROWID;

CREATE TABLE tournament_pairings (
    tournament_id  INTEGER NOT NULL,
    round          INTEGER NOT NULL,
    board          INTEGER NOT NULL CHECK (board >= 1),
    black_user_id  INTEGER NOT NULL,              -- the bye's holder when white_user_id is NULL
    white_user_id  INTEGER,
    result         TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2', '+--', '--+', '--', 'bye')),
    game_id        INTEGER REFERENCES games (id) ON DELETE SET NULL,
    PRIMARY KEY (tournament_id, round, board),
    FOREIGN KEY (tournament_id, round)
        REFERENCES tournament_rounds (tournament_id, number) ON DELETE CASCADE,
    CHECK ((white_user_id IS NULL) = (result IS 'bye')),
    CHECK (white_user_id IS NULL OR white_user_id <> black_user_id),
    CHECK (game_id IS NULL OR white_user_id IS NOT NULL)
) STRICT, WITHOUT ROWID;

-- No one is Black twice or White twice in a round, and a game is played for one board.
CREATE UNIQUE INDEX tournament_pairings_black
    ON tournament_pairings (tournament_id, round, black_user_id);
CREATE UNIQUE INDEX tournament_pairings_white
    ON tournament_pairings (tournament_id, round, white_user_id) WHERE white_user_id IS NOT NULL;
CREATE UNIQUE INDEX tournament_pairings_game
    ON tournament_pairings (game_id) WHERE game_id IS NOT NULL;
