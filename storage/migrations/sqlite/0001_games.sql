-- Games, their moves and takebacks.
-- Times are INTEGER microseconds since the Unix epoch, UTC (exact round trip of a datetime).
-- Enums are stored by value. Seats are (user_id, level): a Discord user, an AI level, or
-- neither (a user whose data was deleted).

PRAGMA application_id = 1198353250;  -- 0x476D6B62, "Gmkb": marks the file as ours

CREATE TABLE games (
    id                  INTEGER PRIMARY KEY,
    guild_id            INTEGER,                    -- NULL: the terminal front-end
    channel_id          INTEGER NOT NULL,
    game                TEXT    NOT NULL CHECK (game IN ('gomoku', 'tictactoe', 'connect4', 'gravity3')),
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
    CHECK (black_user_id IS NULL OR black_level IS NULL),
    CHECK (white_user_id IS NULL OR white_level IS NULL),
    CHECK ((status = 'finished') = (termination IS NOT NULL)),
    CHECK (winner IS NULL OR termination IS NOT NULL),
    CHECK (deadline IS NULL OR status IN ('pending', 'active')),
    CHECK ((finished_at IS NULL) = (status IN ('pending', 'active')))
) STRICT;

-- One open game per channel; also serves "the active game of a channel".
CREATE UNIQUE INDEX games_open_by_channel ON games (channel_id)
    WHERE status IN ('pending', 'active');
-- Games to resume at start-up.
CREATE INDEX games_open ON games (id) WHERE status IN ('pending', 'active');
-- Due deadlines (a deadline exists only on open games: see the CHECK above).
CREATE INDEX games_by_deadline ON games (deadline) WHERE deadline IS NOT NULL;
-- A player's recent games.
CREATE INDEX games_by_black_user ON games (black_user_id, id) WHERE black_user_id IS NOT NULL;
CREATE INDEX games_by_white_user ON games (white_user_id, id) WHERE white_user_id IS NOT NULL;

-- Append-only: a takeback lowers games.ply; the live move at ply p is the newest row for p.
CREATE TABLE moves (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    seq      INTEGER NOT NULL,                      -- the game version this row created
    ply      INTEGER NOT NULL CHECK (ply >= 0),
    x        INTEGER NOT NULL CHECK (x >= 0),
    y        INTEGER NOT NULL CHECK (y >= 0),
    color    TEXT    NOT NULL CHECK (color IN ('black', 'white')),
    made_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER moves_are_append_only_update BEFORE UPDATE ON moves
BEGIN
    SELECT RAISE (ABORT, 'moves are append-only');
END;
CREATE TRIGGER moves_are_append_only_delete BEFORE DELETE ON moves
BEGIN
    SELECT RAISE (ABORT, 'moves are append-only');
END;

-- The audit trail of takebacks: when, and from which ply to which.
CREATE TABLE takebacks (
    game_id   INTEGER NOT NULL REFERENCES games (id),
    seq       INTEGER NOT NULL,                     -- the game version this takeback created
    from_ply  INTEGER NOT NULL,
    to_ply    INTEGER NOT NULL CHECK (0 <= to_ply AND to_ply < from_ply),
    made_at   INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) STRICT, WITHOUT ROWID;
